package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/golem-box/golem-box/mountspec"
	"github.com/golem-box/golem-box/oci"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnSpecsAuditClean compiles golem-box's own specs across the settings
// that change them (root or not, rro support, network, limits, image) and
// requires that the audit finds nothing above low in any of them, except
// what the user asked for: network: true shares the host's network
// namespace, and the audit says so (GB201).
func TestOwnSpecsAuditClean(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"project/src", "cache", "out", "rootfs/bin", "rootfs/proc", "rootfs/dev", "rootfs/sys", "rootfs/tmp"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	sandboxes := map[string]*mountspec.Sandbox{
		"default": {Root: dir + "/project"},
		"mounts": {Root: dir + "/project", Mounts: []mountspec.Mount{
			{Source: dir + "/cache", Target: "/cache", ReadOnly: true}, {Source: dir + "/out", Target: "/out"}}},
		"readonly-network-limits": {Root: dir + "/project", ReadOnly: true, Network: mountspec.Network{Enabled: true},
			Limits: mountspec.Limits{Memory: 256 << 20, PIDs: 64, CPUs: 1.5}},
		"no-root":    {Mounts: []mountspec.Mount{{Source: dir + "/out", Target: "/data/out"}}},
		"image-none": {Root: dir + "/rootfs", Image: oci.ImageNone},
	}
	for name, sb := range sandboxes {
		require.NoError(t, sb.Validate(), name)
		for _, uid := range []uint32{0, 1000} {
			for _, rro := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/uid%d/rro=%v", name, uid, rro), func(t *testing.T) {
					b, err := oci.Compile(context.Background(), sb, oci.Options{Args: []string{"/bin/true"}, UID: uid, GID: uid,
						BundleDir: filepath.Join(dir, "bundle"), ID: "audit", Features: oci.Features{RecursiveReadOnly: rro, Runtime: "runc"}})
					require.NoError(t, err)
					data, err := b.JSON()
					require.NoError(t, err)
					subjects, err := Parse("config.json", data)
					require.NoError(t, err)
					lows := map[string]bool{}
					hostNet := false
					for _, f := range Check(subjects[0]) {
						if sb.Network.Enabled && f.RuleID == "GB201" {
							hostNet = true
							continue
						}
						assert.LessOrEqual(t, f.Severity.Rank(), Low.Rank(), "%s %s: %s: %s", f.Severity, f.RuleID, f.Field, f.Message)
						lows[f.RuleID] = true
					}
					// The lows are known and explained in docs/audit-rules.md.
					for id := range lows {
						assert.Contains(t, []string{"GB121", "GB310", "GB407", "GB503", "GB504"}, id)
					}
					assert.Equal(t, sb.Network.Enabled, hostNet, "network: true is the host's network, reported as GB201")
					assert.Equal(t, uid == 0, lows["GB121"], "host root is reported exactly when golem-box runs as root")
					if rro {
						assert.False(t, lows["GB310"], "with rro support every read-only bind is recursive")
					}
				})
			}
		}
	}
}
