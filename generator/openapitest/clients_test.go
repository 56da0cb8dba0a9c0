package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/opennumerology/numerology/generator"
	"github.com/opennumerology/numerology/generator/generatortest"
	"github.com/opennumerology/numerology/generator/manifest"
	"github.com/opennumerology/numerology/internal/testsupport"
)

// clientsDir is the npm project of the client generators and linters, beside this file:
// package.json pins them, package-lock.json locks them, make test-tools installs them.
const clientsDir = "clients"

// clientPrograms are the programs of clientsDir/src, one per generator, by the name of
// their source file.
var clientPrograms = []string{"openapi-typescript", "hey-api", "orval"}

// toolTimeout bounds each run of a generator, linter, tsc or program.
const toolTimeout = 3 * time.Minute

// TestGeneratedClients generates a client with openapi-typescript (with openapi-fetch),
// @hey-api/openapi-ts and orval from the OpenAPI document of a generated tree, compiles
// each with tsc --strict together with a program that reads typed fields through it, runs
// the three programs against a live numerology serve of that tree and compares what they
// read with the tree's files. It also shows that the programs' type checks can fail, and
// lints the document with Redocly and Spectral.
//
// The npm tools are the cost: each runs once, side by side (toolJobs at a time), and one
// tsc builds the clients of the document and of a broken copy of it together.
func TestGeneratedClients(t *testing.T) {
	testsupport.SkipShort(t, "needs Node and the npm packages of generator/openapitest/clients (make test-tools)")
	t.Parallel()
	tools := requireClientTools(t)

	// The tools start on the document as the site renders it, while the command is built
	// and generates the tree; the tree's own document must then be the same bytes.
	doc := siteDocument(t)
	// good holds the clients of the document; broken those of a copy whose error enum,
	// valid_numbers and a matrix key are wrong, which tsc must reject.
	work := t.TempDir()
	good := clientWorkDir(t, tools, doc, filepath.Join(work, "good"))
	broken := clientWorkDir(t, tools, brokenDocument(t, doc), filepath.Join(work, "broken"))
	redocly := &toolRun{dir: tools, name: "redocly", args: []string{"lint", doc, "--config", "redocly.yaml", "--format", "json"}}
	spectral := &toolRun{dir: tools, name: "spectral", args: []string{"lint", doc, "--ruleset", ".spectral.yaml", "--format", "json", "--quiet"}}
	gens := append(generatorRuns(good), generatorRuns(broken)...)
	toolsDone := make(chan struct{})
	go func() {
		defer close(toolsDone)
		runTools(tools, append([]*toolRun{redocly, spectral}, gens...))
	}()
	t.Cleanup(func() { <-toolsDone }) // before the temporary directories go

	bin := buildNumerology(t)
	tree := filepath.Join(t.TempDir(), "out")
	if out, err := runTool(t, "", bin, "generate", "--years", "1990", "--out", tree); err != nil {
		t.Fatalf("numerology generate: %v\n%s", err, out)
	}
	treeDoc := filepath.Join(tree, filepath.FromSlash(generatortest.File(generator.RouteOpenAPI)))
	if a, b := readFile(t, doc), readFile(t, treeDoc); !bytes.Equal(a, b) {
		t.Fatalf("the site renders an OpenAPI document of %d bytes, numerology generate wrote %s of %d: not the same", len(a), generatortest.File(generator.RouteOpenAPI), len(b))
	}
	base := serve(t, bin, tree)
	<-toolsDone

	t.Run("lint", func(t *testing.T) {
		lintRedocly(t, tools, redocly.out)
		lintSpectral(t, tools, spectral.out)
	})
	for _, g := range gens {
		if g.err != nil {
			t.Fatalf("%s in %s: %v\n%s", g.name, filepath.Base(g.dir), g.err, g.out)
		}
	}
	checkSDKFunctions(t, good, doc)

	// One tsc for both: the good clients must compile and be emitted, the broken ones not.
	tsc, tscErr := runTool(t, work, "tsc", "--build", "good", "broken")
	rejected := tscErrors(tsc)
	if len(rejected["good"]) > 0 || tscErr == nil {
		t.Fatalf("tsc --build good broken: the good clients and their programs must compile under --strict, the broken ones not: %v\n%s", tscErr, tsc)
	}

	want := expectedReport(t, tree)
	programs := make([]*toolRun, len(clientPrograms))
	for i, name := range clientPrograms {
		programs[i] = &toolRun{dir: good, name: "node", args: []string{filepath.Join("dist", "src", name+".js"), base}}
	}
	runTools(tools, programs)
	for i, name := range clientPrograms {
		t.Run(name, func(t *testing.T) {
			out, err := programs[i].out, programs[i].err
			if err != nil {
				t.Fatalf("the %s program failed against numerology serve: %v\n%s", name, err, out)
			}
			var got report
			dec := json.NewDecoder(bytes.NewReader(out))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&got); err != nil {
				t.Fatalf("the %s program's report: %v\n%s", name, err, out)
			}
			want.Client = name
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the %s program read\n%+v\nwant (from the tree's files)\n%+v", name, got, want)
			}
		})
	}

	t.Run("wrong types do not compile", func(t *testing.T) {
		checkTypesAreChecked(t, tools, rejected["broken"], tsc)
	})
}

// toolJobs is how many npm tools run at once: the machine has two cores, and a tool spends
// part of its time starting Node and reading files.
const toolJobs = 4

// toolRun is one run of a tool: what to run, then what it gave.
type toolRun struct {
	dir, name string
	args      []string
	out       []byte
	err       error
}

// runTools runs every run with the tools of tools, the absolute path of clientsDir,
// toolJobs at a time, and returns when all have ended.
func runTools(tools string, runs []*toolRun) {
	var wg sync.WaitGroup
	jobs := make(chan struct{}, toolJobs)
	for _, r := range runs {
		wg.Go(func() {
			jobs <- struct{}{}
			defer func() { <-jobs }()
			r.out, r.err = tool(tools, r.dir, r.name, r.args...)
		})
	}
	wg.Wait()
}

// siteDocument writes the OpenAPI document of the built-in content, as the generator
// renders it, to a temporary file and returns its path.
func siteDocument(t *testing.T) string {
	t.Helper()
	raw, err := generatortest.Site(t).OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.Encode(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return doc
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generatorRuns are the runs of the three generators on work/openapi.json, into work/gen.
func generatorRuns(work string) []*toolRun {
	return []*toolRun{
		{dir: work, name: "openapi-typescript", args: []string{"openapi.json", "-o", "gen/openapi-typescript/schema.ts"}},
		{dir: work, name: "openapi-ts", args: []string{"-i", "openapi.json", "-o", "gen/hey-api", "--no-log-file"}},
		{dir: work, name: "orval", args: []string{"-i", "openapi.json", "-o", "gen/orval/api.ts", "--client", "fetch"}},
	}
}

// tscErrorLine is an error of tsc --build run above the projects: "broken/src/orval.ts(17,1):
// error TS…" names the project, a file of it and a line.
var tscErrorLine = regexp.MustCompile(`(?m)^(\w+)/(\S+)\((\d+),\d+\): error`)

// tscErrors returns, by project, the lines tsc rejects, as "src/orval.ts:17".
func tscErrors(out []byte) map[string][]string {
	errs := map[string][]string{}
	for _, m := range tscErrorLine.FindAllSubmatch(out, -1) {
		errs[string(m[1])] = append(errs[string(m[1])], string(m[2])+":"+string(m[3]))
	}
	return errs
}

// report is what each program prints (clients/src/check.ts, Report).
type report struct {
	Client      string         `json:"client"`
	IndexRoutes int            `json:"index_routes"`
	OpenAPI     string         `json:"openapi"`
	OpenAPIETag string         `json:"openapi_etag"`
	HeadETag    string         `json:"head_etag"`
	List        []int          `json:"list"`
	LifePath    lifePathReport `json:"life_path"`
	LeadingZero int            `json:"leading_zero"`
	MatrixInput [3]int         `json:"matrix_input"`
	Matrix      map[string]int `json:"matrix"`
	OfDate      int            `json:"life_path_of_date"`
	Pair        pairReport     `json:"compatibility"`
	NotFound    errorReport    `json:"number_not_found"`
	NotANumber  errorReport    `json:"not_a_number"`
	InvalidDate errorReport    `json:"invalid_date"`
}

type lifePathReport struct {
	Number      int    `json:"number"`
	Archetype   string `json:"archetype"`
	FirstFamous string `json:"first_famous"`
}

type pairReport struct {
	Numbers []int  `json:"numbers"`
	Level   string `json:"level"`
}

type errorReport struct {
	Error        string `json:"error"`
	Status       int    `json:"status"`
	ValidNumbers []int  `json:"valid_numbers,omitempty"`
}

// expectedReport is what the programs must read: the tree's own files.
func expectedReport(t *testing.T, tree string) report {
	t.Helper()
	m, err := manifest.Load(tree)
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string, v any) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return b
	}
	var index struct{ Routes []any }
	read(generatortest.File(generator.RouteIndex), &index)
	var doc struct{ OpenAPI string }
	docETag := manifest.ETag(testsupport.SHA256Hex(read(generatortest.File(generator.RouteOpenAPI), &doc)))
	var list []struct{ Number int }
	read(generatortest.File(generator.RouteLifePathList), &list)
	var seven struct {
		Number       int
		Archetype    string
		FamousPeople []struct{ Name string } `json:"famous_people"`
	}
	read(generatortest.File(generator.RouteLifePath, 7), &seven)
	var rec struct {
		Input  struct{ Day, Month, Year int }
		Matrix map[string]struct{ Arcana int }
	}
	read(generatortest.File(generator.RouteMatrix, 15, 5, 1990), &rec)
	var ofDate struct{ Number int }
	read(routeFile(t, generator.RouteLifePathDate, 15, 5, 1990), &ofDate)
	var pair pairReport
	read(routeFile(t, generator.RouteCompatibility, 3, 11), &pair)
	errBody := func(key string, withNumbers bool) errorReport {
		var e errorReport
		read(m.Edge.Errors[key].File, &e)
		if !withNumbers {
			e.ValidNumbers = nil
		}
		return e
	}
	r := report{
		IndexRoutes: len(index.Routes),
		OpenAPI:     doc.OpenAPI,
		OpenAPIETag: docETag,
		HeadETag:    docETag,
		LifePath:    lifePathReport{Number: seven.Number, Archetype: seven.Archetype, FirstFamous: seven.FamousPeople[0].Name},
		LeadingZero: 7,
		MatrixInput: [3]int{rec.Input.Day, rec.Input.Month, rec.Input.Year},
		Matrix:      map[string]int{},
		OfDate:      ofDate.Number,
		Pair:        pair,
		NotFound:    errBody(manifest.ErrNumberNotFound, true),
		NotANumber:  errBody(manifest.ErrNumberNotFound, false),
		InvalidDate: errBody(manifest.ErrInvalidDate, false),
	}
	for _, item := range list {
		r.List = append(r.List, item.Number)
	}
	for k, cell := range rec.Matrix {
		r.Matrix[k] = cell.Arcana
	}
	if len(r.Matrix) != 12 || len(r.NotFound.ValidNumbers) == 0 {
		t.Fatalf("the tree's matrix record has %d positions and the 404 body %d valid numbers", len(r.Matrix), len(r.NotFound.ValidNumbers))
	}
	return r
}

// routeFile is the tree path of the body of the named route for canonical values.
func routeFile(t *testing.T, name string, vals ...int) string {
	t.Helper()
	for _, r := range generator.Routes() {
		if r.Name == name {
			return r.FilePath(vals)
		}
	}
	t.Fatalf("no route %s", name)
	return ""
}

// requireClientTools fails the test when the npm packages of clientsDir are not installed,
// and returns the directory's absolute path.
func requireClientTools(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(clientsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{"node", "tsc", "openapi-typescript", "openapi-ts", "orval", "redocly", "spectral"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", bin)); err != nil {
			t.Fatalf("generator/openapitest/clients/node_modules/.bin/%s missing: run make test-tools (npm ci in generator/openapitest/clients/; needs Node.js and npm)", bin)
		}
	}
	return dir
}

// buildNumerology builds the numerology command, into the user's cache when there is one:
// go build leaves a binary it finds up to date as it is, where linking a new one into a
// temporary folder cost 2.5 s of CPU on every run.
func buildNumerology(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	dir := t.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		if d := filepath.Join(cache, "numerology", "openapitest"); os.MkdirAll(d, 0o755) == nil {
			dir = d
		}
	}
	bin := filepath.Join(dir, "numerology")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/opennumerology/numerology/cmd/numerology").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/numerology: %v\n%s", err, out)
	}
	return bin
}

// serve starts numerology serve on a free loopback port over tree, stopped when the test
// ends, and returns its base URL (the site's, without the API prefix).
func serve(t *testing.T, bin, tree string) string {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--dir", tree, "--addr", "127.0.0.1:0")
	var stdout, stderr testsupport.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start numerology serve: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	re := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)` + regexp.QuoteMeta(manifest.APIPrefix))
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("numerology serve did not report its address; stdout %q, stderr %q", stdout.String(), stderr.String())
	return ""
}

// clientWorkDir makes the directory work for the clients of a document: the programs and
// tsconfig of clientsDir, its node_modules (linked), and the document. It returns work.
func clientWorkDir(t *testing.T, tools, doc, work string) string {
	t.Helper()
	src := filepath.Join(work, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(tools, "src"))
	if err != nil {
		t.Fatal(err)
	}
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range entries {
		copyFile(filepath.Join(tools, "src", e.Name()), filepath.Join(src, e.Name()))
	}
	copyFile(filepath.Join(tools, "tsconfig.json"), filepath.Join(work, "tsconfig.json"))
	copyFile(doc, filepath.Join(work, "openapi.json"))
	// tsc emits CommonJS: Node resolves the generated modules' extensionless imports.
	if err := os.WriteFile(filepath.Join(work, "package.json"), []byte(`{"private": true, "type": "commonjs"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return work
}

// checkSDKFunctions checks that @hey-api/openapi-ts makes one function per operation of
// the document and no other: no duplicates for trailing slashes, none for methods that
// can only fail.
func checkSDKFunctions(t *testing.T, work, doc string) {
	t.Helper()
	var d struct {
		Paths map[string]map[string]json.RawMessage
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, item := range d.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			ops = append(ops, strings.ToLower(op.OperationID))
		}
	}
	sdk, err := os.ReadFile(filepath.Join(work, "gen", "hey-api", "sdk.gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var fns []string
	for _, m := range regexp.MustCompile(`(?m)^export const (\w+) = `).FindAllSubmatch(sdk, -1) {
		fns = append(fns, strings.ToLower(string(m[1])))
	}
	slices.Sort(ops)
	slices.Sort(fns)
	if !slices.Equal(ops, fns) {
		t.Errorf("@hey-api/openapi-ts made %d functions %v; want one per operation of the document, %v", len(fns), fns, ops)
	}
}

// brokenDocument writes a copy of the document that breaks the three types the programs
// read — the error enum, the type of valid_numbers and a matrix key — and returns its path.
func brokenDocument(t *testing.T, doc string) string {
	t.Helper()
	var d map[string]any
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	schemas := dig(t, d, "components", "schemas")
	delete(dig(t, schemas, "ErrorBody", "properties", "error"), "enum")
	dig(t, schemas, "ErrorBody", "properties")["valid_numbers"] = map[string]any{}
	dig(t, schemas, "NumberNotFoundError", "properties")["valid_numbers"] = map[string]any{}
	positions := dig(t, schemas, "MatrixPositions")
	delete(dig(t, positions, "properties"), "karma")
	req, _ := positions["required"].([]any)
	positions["required"] = slices.DeleteFunc(req, func(v any) bool { return v == "karma" })
	broken := filepath.Join(t.TempDir(), "openapi.json")
	if b, err = json.Marshal(d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return broken
}

// checkTypesAreChecked requires tsc to reject each program, compiled with the clients of
// the broken document (brokenDocument), at each of the three reads the document breaks.
// rejected are the lines tsc rejects ("src/orval.ts:17"), out all it printed.
func checkTypesAreChecked(t *testing.T, tools string, rejected []string, out []byte) {
	t.Helper()
	if len(rejected) == 0 {
		t.Fatalf("tsc --strict accepts the programs on a document whose error enum, valid_numbers and matrix keys are wrong\n%s", out)
	}
	reads := map[string]string{ // what a read looks like → what the document broke
		`ErrorText>()`:   "the error enum",
		`valid_numbers)`: "valid_numbers as number[]",
		`m.karma.`:       "the matrix key karma",
	}
	for _, name := range clientPrograms {
		src, err := os.ReadFile(filepath.Join(tools, "src", name+".ts"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for marker, what := range reads {
			found := false
			for i, line := range lines {
				if strings.Contains(line, marker) && slices.Contains(rejected, fmt.Sprintf("src/%s.ts:%d", name, i+1)) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: tsc does not reject the read of %s (a line with %q) when the document breaks it\n%s", name, what, marker, out)
			}
		}
	}
}

// dig returns the JSON object at the path of keys.
func dig(t *testing.T, v map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := v[k].(map[string]any)
		if !ok {
			t.Fatalf("the document has no object at %s", strings.Join(keys, "/"))
		}
		v = next
	}
	return v
}

// lintRedocly checks what redocly lint says of the document, with Redocly's recommended rules (clients/redocly.yaml):
// no errors, and warnings only from the rules the config names with their reasons.
func lintRedocly(t *testing.T, tools string, out []byte) {
	t.Helper()
	var res struct {
		Totals   struct{ Errors, Warnings int }
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string
			Message  string
			Location []struct{ Pointer string }
		}
	}
	if err := json.Unmarshal(jsonPart(out), &res); err != nil {
		t.Fatalf("redocly lint: %v\n%s", err, out)
	}
	explained := configRules(t, filepath.Join(tools, "redocly.yaml"))
	for _, p := range res.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		if p.Severity == "error" || !explained[p.RuleID] {
			t.Errorf("redocly: %s %s at %s: %s (an error, or a warning that redocly.yaml does not explain)", p.Severity, p.RuleID, where, p.Message)
		}
	}
	if res.Totals.Errors != 0 {
		t.Errorf("redocly: %d errors", res.Totals.Errors)
	}
	t.Logf("redocly: %d errors, %d warnings", res.Totals.Errors, res.Totals.Warnings)
}

// lintSpectral checks what spectral lint says of the document, with Spectral's spectral:oas rules (clients/.spectral.yaml):
// no errors, and warnings only from the rules the config names with their reasons.
func lintSpectral(t *testing.T, tools string, out []byte) {
	t.Helper()
	var res []struct {
		Code     string
		Severity int // 0 error, 1 warning, 2 information, 3 hint
		Message  string
		Path     []any
	}
	if err := json.Unmarshal(jsonPart(out), &res); err != nil {
		t.Fatalf("spectral lint: %v\n%s", err, out)
	}
	explained := configRules(t, filepath.Join(tools, ".spectral.yaml"))
	warnings := 0
	for _, p := range res {
		if p.Severity == 1 {
			warnings++
		}
		if p.Severity == 0 || (p.Severity == 1 && !explained[p.Code]) {
			t.Errorf("spectral: severity %d %s at %v: %s (an error, or a warning that .spectral.yaml does not explain)", p.Severity, p.Code, p.Path, p.Message)
		}
	}
	t.Logf("spectral: %d problems, %d warnings", len(res), warnings)
}

// configRules returns the rules a linter config sets, each of which has a comment above it.
func configRules(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Rules map[string]any `yaml:"rules"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lines := strings.Split(string(b), "\n")
	out := map[string]bool{}
	for rule := range cfg.Rules {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), rule+":") })
		if i < 1 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
			t.Errorf("%s: rule %s has no comment that says why", filepath.Base(path), rule)
		}
		out[rule] = true
	}
	return out
}

// jsonPart is out from its first '{' or '[': the linters may print a notice before.
func jsonPart(out []byte) []byte {
	if i := bytes.IndexAny(out, "{["); i >= 0 {
		return out[i:]
	}
	return out
}

// runTool runs a command of clientsDir's node_modules/.bin (or, by absolute path, any
// other) in dir, as tool does.
func runTool(t *testing.T, dir, name string, args ...string) ([]byte, error) {
	t.Helper()
	tools, err := filepath.Abs(clientsDir)
	if err != nil {
		t.Fatal(err)
	}
	return tool(tools, dir, name, args...)
}

// tool runs a command of the node_modules/.bin of tools, the absolute path of clientsDir
// (or, by absolute path, any other), in dir, with that directory first on PATH so the tools
// run on the pinned Node, and returns its standard output; the error holds the standard
// error.
func tool(tools, dir, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	binDir := filepath.Join(tools, "node_modules", ".bin")
	path := name
	if !filepath.IsAbs(name) {
		path = filepath.Join(binDir, name)
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("%s is not installed in generator/openapitest/clients: run make test-tools", name)
		}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"NO_COLOR=1", "CI=1",
		"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%s did not finish within %v", name, toolTimeout)
	}
	if err != nil {
		err = fmt.Errorf("%w\n%s", err, stderr.Bytes())
	}
	return stdout.Bytes(), err
}
