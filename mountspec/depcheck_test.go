package mountspec

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the layout honest: the configuration layer never
// pulls in container clients or the CLI framework (DESIGN.md).
func TestDependencies(t *testing.T) {
	for _, pkg := range []string{".", "../sandbox"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, banned := range []string{"github.com/docker/", "github.com/moby/", "github.com/containerd/", "github.com/spf13/cobra"} {
				if strings.HasPrefix(dep, banned) {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
