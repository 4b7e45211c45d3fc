package runstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOwnerStamp(t *testing.T) {
	assert.True(t, OwnerAlive(OwnerStamp()))
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	assert.False(t, OwnerAlive("1 0"), "pid 1 with another start time is a recycled pid")
	assert.False(t, OwnerAlive(""), "no stamp")
	assert.False(t, OwnerAlive("-5 7"))
	assert.False(t, OwnerAlive(strconv.Itoa(cmd.Process.Pid)+" 1"), "a process that exited")
}

func TestBundlesLeftovers(t *testing.T) {
	bs := Bundles{Dir: filepath.Join(t.TempDir(), "bundles")}
	none, err := bs.Leftovers()
	require.NoError(t, err)
	assert.Empty(t, none, "no directory yet is no leftovers")

	id, err := NewID()
	require.NoError(t, err)
	assert.Regexp(t, `^gb-[0-9a-f]{12}$`, id)
	live, err := bs.Create(id)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(live, "owner"))
	_, err = bs.Create(id)
	assert.Error(t, err, "an id is never reused")

	// A bundle whose owner died, and one that lost its owner file.
	require.NoError(t, os.MkdirAll(filepath.Join(bs.Dir, "gb-dead"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(bs.Dir, "gb-dead", "owner"), []byte("999999999 1"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(bs.Dir, "gb-nofile"), 0o700))

	left, err := bs.Leftovers()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"gb-dead", "gb-nofile"}, left)
	require.NoError(t, bs.Remove("gb-dead"))
	assert.False(t, bs.Exists("gb-dead"))
	assert.True(t, bs.Exists(id))
}

func TestCounter(t *testing.T) {
	f := filepath.Join(t.TempDir(), "oom_control")
	require.NoError(t, os.WriteFile(f, []byte("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), 0o644))
	n, ok := counter(f, "oom_kill")
	assert.True(t, ok)
	assert.EqualValues(t, 3, n)
	_, ok = counter(f, "missing")
	assert.False(t, ok)
	assert.False(t, OOMKilled("gb-none", -1), "no cgroup and no vmstat reading is no evidence")
}
