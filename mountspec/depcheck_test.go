package mountspec

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps the layout honest (DESIGN.md): the configuration
// and I/O layers never pull in container engines or the CLI framework, and
// the OCI compiler and the runners never pull in engine clients (oci may
// use containerd's seccomp profile, which is not a client).
func TestDependencies(t *testing.T) {
	clients := []string{"github.com/docker/docker", "github.com/docker/cli", "github.com/moby/moby", "github.com/containerd/containerd/v2/client", "github.com/spf13/cobra"}
	for pkg, banned := range map[string][]string{
		".":                     append(clients, "github.com/containerd/"),
		"../sandbox":            append(clients, "github.com/containerd/"),
		"../policy":             append(clients, "github.com/containerd/"),
		"../oci":                clients,
		"../runner":             append(clients, "github.com/containerd/"),
		"../runner/oci":         clients,
		"../runner/runnertest/": clients,
		"../images":             append(clients, "github.com/containerd/"),
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if strings.HasPrefix(dep, b) {
					t.Errorf("%s imports %s", pkg, dep)
				}
			}
		}
	}
}
