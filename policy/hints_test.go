package policy

import (
	"strings"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/stretchr/testify/assert"
)

func TestHints(t *testing.T) {
	off := &mountspec.Sandbox{Root: "/p", Mounts: []mountspec.Mount{{Source: "/o", Target: "/out"}, {Source: "/d", Target: "/data", ReadOnly: true}}}
	on := &mountspec.Sandbox{Root: "/p", ReadOnly: true, Network: mountspec.Network{Enabled: true}}
	allow := &mountspec.Sandbox{Root: "/p", Network: mountspec.Network{Enabled: true, Allow: []string{"proxy.golang.org"}}}
	for _, tc := range []struct {
		stderr string
		sb     *mountspec.Sandbox
		want   []string
	}{
		{"curl: (6) Could not resolve host: example.com", off, []string{"Network access is disabled for this sandbox (network: false): the command cannot reach any host."}},
		{"curl: (6) Could not resolve host: example.com", on, nil},
		{"dial tcp: lookup example.com: Temporary failure in name resolution", allow, []string{"Network access is limited to: proxy.golang.org."}},
		{"sh: can't create /data/x: Read-only file system", off, []string{"Writable paths of this sandbox: /, /out. Everything else is read-only or not there."}},
		{"touch: cannot touch '/x': Permission denied", on, []string{"Writable paths of this sandbox: none. Everything else is read-only or not there."}},
		{"make: *** [all] Error 2", off, nil},
		// Only the end of a long output is read.
		{"Permission denied\n" + strings.Repeat("x", maxHintScan), off, nil},
	} {
		assert.Equal(t, tc.want, Hints([]byte(tc.stderr), tc.sb), tc.stderr[:min(40, len(tc.stderr))])
	}
}
