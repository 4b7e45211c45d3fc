package doctor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/golem-box/golem-box/runner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCgroupMode(t *testing.T) {
	v1 := "30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid shared:12 - cgroup cgroup rw,memory\n"
	unified := "29 25 0:25 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw\n"
	v2 := "29 25 0:25 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw\n"
	assert.Equal(t, "v1", cgroupMode(v1))
	assert.Equal(t, "hybrid", cgroupMode(v1+unified))
	assert.Equal(t, "v2", cgroupMode(v2))
	assert.Equal(t, "", cgroupMode("garbage\n"))
}

func TestReadHostFakeTree(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"/proc/sys/kernel/osrelease":         "6.1.0\n",
		"/proc/sys/user/max_user_namespaces": "0\n",
		"/proc/self/status":                  "Name:\tx\nSeccomp:\t0\n",
		"/sys/kernel/security/lsm":           "lockdown,capability,landlock,apparmor",
		"/proc/self/mountinfo":               "29 25 0:25 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
	}
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(root+p), 0o755))
		require.NoError(t, os.WriteFile(root+p, []byte(c), 0o644))
	}
	h := ReadHost(root)
	assert.Equal(t, Host{Kernel: "6.1.0", Cgroups: "v2", UserNamespaces: 0, Seccomp: true, Landlock: true,
		LSMs: []string{"lockdown", "capability", "landlock", "apparmor"}}, h)
	assert.Equal(t, Host{UserNamespaces: -1}, ReadHost(t.TempDir()), "nothing known is nothing claimed")
}

// A name this build does not know is reported, not a crash.
func TestCheckUnknownBackend(t *testing.T) {
	r := Check(context.Background(), []string{"no-such-backend"}, runner.Settings{})
	require.Len(t, r.Backends, 1)
	assert.False(t, r.Backends[0].Usable)
	assert.Contains(t, r.Backends[0].Reason, "not available in this build")
	assert.NotEmpty(t, r.Host.Kernel)
}
