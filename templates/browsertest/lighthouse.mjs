// lighthouse.mjs audits pages with Lighthouse's Node API, many in one process: loading
// Lighthouse and resolving its config cost about 1.3 s of CPU for every audit when each was
// a run of its command line (lighthouse_test.go starts one of these for all its audits).
//
// Usage: node lighthouse.mjs PORT, in this folder. Each line of standard input is a request
// {"url", "slowdown", "out"}: the page is audited in the Chromium whose DevTools listen on
// PORT, with Lighthouse's default (mobile) settings, as the command line gives them, and
// the CPU slowdown asked for, in the categories performance, accessibility, best practices
// and SEO, without the report's full-page screenshot; the JSON report is written to out.
// Each request is answered with one line, "ok" or "error: MESSAGE", in order.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import lighthouse from "lighthouse";

const port = Number(process.argv[2]);
if (!(port > 0)) {
  console.error("usage: node lighthouse.mjs PORT");
  process.exit(2);
}

for await (const line of createInterface({ input: process.stdin })) {
  let answer = "ok";
  try {
    const req = JSON.parse(line);
    const result = await lighthouse(req.url, {
      port,
      output: "json",
      logLevel: "silent",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
      // Merged into the preset's throttling, as --throttling.cpuSlowdownMultiplier is.
      throttling: { cpuSlowdownMultiplier: req.slowdown },
      // The full-page screenshot is taken after the trace, so it changes no metric; on
      // /chart (about 10,000 px tall on a phone) it cost a tenth of the run's CPU.
      disableFullPageScreenshot: true,
    });
    if (!result) {
      throw new Error("no result");
    }
    writeFileSync(req.out, result.report);
  } catch (e) {
    answer = "error: " + String((e && e.message) || e).replace(/\s+/g, " ");
  }
  console.log(answer);
}
