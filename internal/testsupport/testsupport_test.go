package testsupport_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/opennumerology/numerology/internal/testsupport"
)

// TestSkip runs a test that skips in a child process: it skips when NUMEROLOGY_TEST_NO_SKIP
// is unset or "0", and fails with the reason when the variable is set, as in make test and CI.
func TestSkip(t *testing.T) {
	if os.Getenv("TESTSUPPORT_CHILD") == "1" {
		testsupport.Skip(t, "needs a tool this machine lacks")
		t.Fatal("Skip returned")
	}
	tests := []struct {
		env      string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP: TestSkip"},
		{"0", false, "--- SKIP: TestSkip"},
		{"1", true, "this test would skip (needs a tool this machine lacks), but NUMEROLOGY_TEST_NO_SKIP=1 allows no skip"},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSkip$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTSUPPORT_CHILD=1", testsupport.NoSkipEnv+"="+tt.env)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tt.wantFail {
			t.Errorf("%s=%q: failed = %v, want %v\n%s", testsupport.NoSkipEnv, tt.env, failed, tt.wantFail, out)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("%s=%q: the output lacks %q:\n%s", testsupport.NoSkipEnv, tt.env, tt.want, out)
		}
	}
}
