package oci

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDepcheck keeps the engine clients out of the packages DESIGN.md says
// must not import them: the spec compiler and its audit read and write
// files, they never talk to a daemon.
func TestDepcheck(t *testing.T) {
	forbidden := map[string][]string{
		"github.com/golem-box/golem-box/oci":       {"github.com/moby/moby/client", "github.com/containerd/containerd/v2/client", "github.com/spf13/cobra"},
		"github.com/golem-box/golem-box/oci/audit": {"github.com/moby/moby/client", "github.com/moby/moby/api", "github.com/containerd/containerd/v2/client", "github.com/spf13/cobra"},
		"github.com/golem-box/golem-box/mountspec": {"github.com/moby/moby", "github.com/containerd/containerd", "github.com/spf13/cobra"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		require.NoError(t, err, pkg)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, pkg)
		for _, d := range deps {
			for _, b := range bad {
				assert.False(t, d == b || strings.HasPrefix(d, b+"/"), "%s imports %s (through %s)", pkg, b, d)
			}
		}
	}
}
