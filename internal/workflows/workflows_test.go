package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

type workflow struct {
	Name string         `yaml:"name"`
	On   map[string]any `yaml:"on"`
	Jobs map[string]job `yaml:"jobs"`
}

type job struct {
	If    string `yaml:"if"`
	Needs any    `yaml:"needs"`
	Steps []step `yaml:"steps"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

func load(t *testing.T, name string) workflow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return w
}

func runs(j job) []string {
	var out []string
	for _, s := range j.Steps {
		if s.Run != "" {
			out = append(out, strings.TrimSpace(s.Run))
		}
	}
	return out
}

// TestTestWorkflowRunsOnEveryPushAndPullRequest: test.yml runs make check and make test on
// push and pull_request, with no branch filter that would leave a push untested.
func TestTestWorkflowRunsOnEveryPushAndPullRequest(t *testing.T) {
	w := load(t, "test.yml")
	for _, ev := range []string{"push", "pull_request"} {
		v, ok := w.On[ev]
		if !ok {
			t.Errorf("test.yml does not run on %s", ev)
		}
		if v != nil {
			t.Errorf("test.yml filters %s (%v): every push and pull request is tested", ev, v)
		}
	}
	var all []string
	for _, j := range w.Jobs {
		all = append(all, runs(j)...)
	}
	for _, want := range []string{"make check", "make test"} {
		if !slices.Contains(all, want) {
			t.Errorf("test.yml has no step that runs %q (steps: %q)", want, all)
		}
	}
}

// TestPublishDeploysOnlyTestedCommits: publish.yml starts only when the test workflow has
// completed on main, deploys only when it succeeded on a push, and checks out exactly the
// commit that was tested.
func TestPublishDeploysOnlyTestedCommits(t *testing.T) {
	test := load(t, "test.yml")
	w := load(t, "publish.yml")
	if len(w.On) != 1 {
		t.Fatalf("publish.yml has triggers %v; only workflow_run may start a deploy", w.On)
	}
	wr, ok := w.On["workflow_run"].(map[string]any)
	if !ok {
		t.Fatalf("publish.yml is not triggered by workflow_run: %v", w.On)
	}
	if got := wr["workflows"]; !equalList(got, test.Name) {
		t.Errorf("publish.yml waits for workflows %v, want [%s]", got, test.Name)
	}
	if got := wr["branches"]; !equalList(got, "main") {
		t.Errorf("publish.yml runs for branches %v, want [main]", got)
	}
	for name, j := range w.Jobs {
		if !strings.Contains(j.If, "github.event.workflow_run.conclusion == 'success'") {
			t.Errorf("job %s runs without requiring the tests' success (if: %q)", name, j.If)
		}
		if !strings.Contains(j.If, "github.event.workflow_run.event == 'push'") {
			t.Errorf("job %s may deploy a pull request's run (if: %q)", name, j.If)
		}
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["ref"] != "${{ github.event.workflow_run.head_sha }}" {
				t.Errorf("job %s checks out %q, not the tested commit", name, s.With["ref"])
			}
		}
	}
}

func equalList(v any, want ...string) bool {
	l, ok := v.([]any)
	if !ok || len(l) != len(want) {
		return false
	}
	for i, x := range l {
		if s, _ := x.(string); s != want[i] {
			return false
		}
	}
	return true
}
