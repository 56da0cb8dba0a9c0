-- wrk script of `make bench-serve`: 90% valid matrix dates, 5% life path records, 5%
-- invalid dates, drawn at random, each from a client never seen before (X-Forwarded-For,
-- which both servers trust), so that the rate limiters' client tables churn as under real
-- traffic; prints one RESULT line for scripts/bench-serve.sh.
local days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
local numbers = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 22, 33}

local function leap(y) return (y % 4 == 0 and y % 100 ~= 0) or y % 400 == 0 end

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

local sent = 0
function init(args)
  math.randomseed(1000 + (id or 0))
end

-- client returns a fresh address: 10.0.0.0/8 split between the threads.
local function client()
  sent = sent + 1
  local n = ((id or 1) - 1) * 4194304 + sent % 4194304
  return string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
end

function request()
  local r = math.random(100)
  local path
  if r <= 90 then
    local y = math.random(1900, 2100)
    local m = math.random(12)
    local n = days[m]
    if m == 2 and leap(y) then n = 29 end
    path = "/api/public/matrix/" .. math.random(n) .. "/" .. m .. "/" .. y
  elseif r <= 95 then
    path = "/api/public/life-path/" .. numbers[math.random(#numbers)]
  else
    local k = math.random(3)
    if k == 1 then
      path = "/api/public/matrix/30/2/" .. math.random(1900, 2100)
    elseif k == 2 then
      path = "/api/public/matrix/1/1/" .. math.random(2101, 9999)
    else
      path = "/api/public/matrix/x/" .. math.random(12) .. "/2000"
    end
  end
  return wrk.format("GET", path, {["X-Forwarded-For"] = client()})
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT rps=%.0f p50_us=%d p99_us=%d requests=%d socket_errors=%d non2xx=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50), latency:percentile(99),
    summary.requests, e.connect + e.read + e.write + e.timeout, e.status))
end
