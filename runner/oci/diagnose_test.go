package oci

import (
	"context"
	"strings"
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		have, want string
		less       bool
	}{
		{"1.1.5+ds1", "1.1.12", true},
		{"1.1.12", "1.1.12", false},
		{"1.2.8", "1.1.12", false},
		{"1.0.0-rc6", "1.0.0-rc7", true},
		{"1.0.0-rc95", "1.0.0-rc7", false},
		{"1.0.0", "1.0.0-rc95", false},
		{"1.0.0-rc.3", "1.0.0", true},
		{"1.8.1", "1.4.4", false},
		{"garbage", "1.0.0", true},
		{"1.8", "1.4.4", false},
	} {
		assert.Equal(t, c.less, versionLess(c.have, c.want), "%s < %s", c.have, c.want)
	}
}

// On this machine: Debian's runc 1.1.5 carries the CVE-2024-21626
// backport but predates the 2025 fixes; crun 1.8.1 is past its escape
// and lacks rro; the cgroups are hybrid.
func TestDiagnoseInstalledRuntimes(t *testing.T) {
	ctx := context.Background()
	d := New(WithRuntime("runc"), WithStateDir(t.TempDir())).Diagnose(ctx)
	require.True(t, d.Usable, "%+v", d)
	assert.NotEmpty(t, d.Version)
	all := noteText(d.Notes)
	if versionLess(d.Version, "1.2.8") {
		assert.Contains(t, all, "CVE-2025-31133")
	}
	if deb := debianVersion(ctx, New(WithRuntime("runc")).path); deb != "" && debianAtLeast(ctx, deb, "1.1.5+ds1-1+deb12u1") {
		assert.NotContains(t, all, "CVE-2024-21626", "the Debian backport counts")
	}
	assert.NotContains(t, all, "CVE-2019-5736")

	d = New(WithRuntime("crun"), WithStateDir(t.TempDir())).Diagnose(ctx)
	require.True(t, d.Usable, "%+v", d)
	assert.Equal(t, HybridCgroups(), strings.Contains(noteText(d.Notes), "hybrid"))

	d = New(WithRuntime("/nonexistent/runc"), WithStateDir(t.TempDir())).Diagnose(ctx)
	assert.False(t, d.Usable)
	assert.Contains(t, d.Reason, "not found")
	assert.Contains(t, d.Fix, "apt-get install runc")
}

func noteText(ns []runner.Note) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.Msg + "\n")
	}
	return b.String()
}
