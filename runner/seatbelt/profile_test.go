package seatbelt

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// macCanon stands in for macOS's /tmp → /private/tmp link.
func macCanon(p string) string {
	if strings.HasPrefix(p, "/tmp/") {
		return "/private" + p
	}
	return p
}

func TestGoldenProfiles(t *testing.T) {
	for name, sb := range map[string]*mountspec.Sandbox{
		"default": {Root: "/Users/ada/project", Mounts: []mountspec.Mount{
			{Source: "/Users/ada/Downloads", Target: "/in", ReadOnly: true},
			{Source: "/tmp/out", Target: "/out"}}},
		"readonly-network": {Root: "/Users/ada/project", ReadOnly: true, Network: mountspec.Network{Enabled: true}},
		"quoting":          {Root: `/Users/ada/odd "name"\dir`},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Profile(sb, "/tmp/golem-box-seatbelt-1/tmp", macCanon)
			require.NoError(t, err)
			golden := filepath.Join("testdata", name+".sb")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "go test ./runner/seatbelt -update writes it")
			assert.Equal(t, string(want), got)
		})
	}
}

// TestProfileBoundaries checks what makes the profile a sandbox, whatever
// the golden files say.
func TestProfileBoundaries(t *testing.T) {
	sb := &mountspec.Sandbox{Root: "/Users/ada/project", Mounts: []mountspec.Mount{
		{Source: "/Users/ada/project/vendor", Target: "/vendor", ReadOnly: true}}}
	p, err := Profile(sb, "/tmp/t", macCanon)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(p, "(version 1)\n(deny default)\n"), "deny by default")
	assert.NotContains(t, p, "(allow network", "network off")
	assert.Contains(t, p, `(allow file-read* file-write* (subpath "/Users/ada/project"))`)
	assert.Contains(t, p, `(allow file-read* (subpath "/Users/ada/project/vendor"))`)
	// The read-only mount inside the writable root is denied writes after
	// the grant (later rules win in Seatbelt).
	grant := strings.Index(p, `(allow file-read* file-write* (subpath "/Users/ada/project"))`)
	deny := strings.Index(p, `(deny file-write* (subpath "/Users/ada/project/vendor"))`)
	assert.True(t, grant >= 0 && deny > grant, "deny after grant")
	assert.Contains(t, p, `(subpath "/private/tmp/t")`, "canonical paths")
	assert.NotContains(t, p, `"/Users/ada"`+")", "nothing above the sandbox")
	assert.Equal(t, strings.Count(p, "("), strings.Count(p, ")"), "balanced")

	_, err = Profile(&mountspec.Sandbox{Network: mountspec.Network{Enabled: true, Allow: []string{"a.b"}}}, "/tmp/t", macCanon)
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = Profile(&mountspec.Sandbox{Image: "alpine:3"}, "/tmp/t", macCanon)
	assert.ErrorIs(t, err, ErrUnsupported)
}
