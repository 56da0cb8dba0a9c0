package content

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds arbitrary bytes to the loader as a life path file: it must never panic and
// must either load or report problems that each carry the file's name. make test runs it
// for a bounded time.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"life-path/1.yaml", "site.yaml", "arcana.yaml"} {
		b, err := os.ReadFile("testdata/valid/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(aliasBomb()))
	f.Add([]byte("traits: [[[[[[[[[[[[[[[[[[[[[[x]]]]]]]]]]]]]]]]]]]]]\n"))
	f.Add([]byte("number: 1\n---\nnumber: 2\n"))
	f.Add([]byte("\xff\xfe"))
	f.Add([]byte(strings.Repeat("- ", 100) + "x\n"))
	f.Add([]byte("a:\n- b:\n  - [{c: d}]\n? e\n: f\n"))
	f.Add([]byte("\uFEFFnumber: 1\ntagline: \"a\\0b\"\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// One file through the whole per-file path (limits, parse, strict decode, checks):
		// loading all sixteen files per input would make the fuzzer twenty times slower.
		l := &loader{fsys: fstest.MapFS{"life-path/1.yaml": {Data: b}}, label: "content", rules: testRules}
		var lp LifePath
		if d := l.read("life-path/1.yaml", &lp); d != nil {
			d.checkLifePath(1, &lp)
		}
		for _, p := range l.problems {
			if p.File != "content/life-path/1.yaml" || p.Message == "" {
				t.Fatalf("problem without the file or a message: %+v", p)
			}
		}
	})
}
