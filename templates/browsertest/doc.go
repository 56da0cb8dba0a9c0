// Package browsertest drives headless Chromium (through chromedp) against the human pages
// of a generated tree served by the local edge server: the matrix details page must draw
// the 12 positions of a date as the golden vectors say, and answer a bad date, a 429 and a
// network error with a friendly message, and every page's share image (og:image) must load
// as a 1200×630 PNG. The tests share one generated tree and one browser, each in a tab of
// its own, in Chromium's headless shell; Lighthouse audits in the full Chromium. They need
// the Debian packages chromium-headless-shell and chromium (make test-tools installs them)
// and fail without them; only go test -short skips them.
package browsertest
