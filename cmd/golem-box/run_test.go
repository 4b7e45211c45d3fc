package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunInContainer(t *testing.T) {
	home := seedTree(t)
	t.Setenv("GOLEM_BOX_STATE_DIR", t.TempDir())
	flags := []string{"--root", filepath.Join(home, "project"), "-v", filepath.Join(home, ".cache") + ":/cache:ro"}
	for _, rt := range []string{"runc", "crun"} {
		t.Run(rt, func(t *testing.T) {
			r := gb(t, home, "", append(flags, "run", "--runtime", rt, "--", "sh", "-c", "cat /src/app.ts; echo x > /cache/f; exit 3")...)
			assert.Equal(t, 3, r.code, "the command's status passes through")
			assert.Equal(t, "export {}\n", r.stdout)
			assert.Contains(t, r.stderr, "Read-only file system")
			assert.NoFileExists(t, filepath.Join(home, ".cache/f"))

			r = gb(t, home, "", append(flags, "run", "--runtime", rt, "--timeout", "1s", "--", "sleep", "30")...)
			assert.Equal(t, 137, r.code)
			assert.Contains(t, r.stderr, "ended by timeout")

			r = gb(t, home, "", append(flags, "-o", "json", "run", "--runtime", rt, "--", "true")...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, `"reason": "exit"`)
		})
	}
	r := gb(t, home, "", append(flags, "compile", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"ociVersion": "1.0.2-dev"`)
	assert.Contains(t, r.stdout, filepath.Join(home, "project/src"))
	r = gb(t, home, "", append(flags, "run", "--workdir", "/proc/self/fd/3", "--", "true")...)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "CVE-2024-21626")
	r = gb(t, home, "", append(flags, "run")...)
	assert.Equal(t, 2, r.code)
}

// TestSIGKILLThenGC kills golem-box run in the middle of a run; gc must
// then leave no container, bundle or process behind.
func TestSIGKILLThenGC(t *testing.T) {
	for _, rt := range []string{"runc", "crun"} {
		t.Run(rt, func(t *testing.T) {
			home := seedTree(t)
			state := t.TempDir()
			t.Setenv("GOLEM_BOX_STATE_DIR", state)
			marker := "golem-sigkill-" + rt + "-" + filepath.Base(home)
			cmd := exec.Command(binary, "--root", filepath.Join(home, "project"), "run", "--runtime", rt, "--", "sh", "-c", "echo "+marker+" >/dev/null; sleep 300")
			cmd.Dir = home
			require.NoError(t, cmd.Start())
			bundles := filepath.Join(state, "bundles")
			require.Eventually(t, func() bool {
				des, _ := os.ReadDir(bundles)
				return len(des) == 1 && running(rt, state) == 1
			}, 20*time.Second, 50*time.Millisecond, "the run must start")
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			des, _ := os.ReadDir(bundles)
			require.Len(t, des, 1, "a killed run leaves its bundle: gc is needed")

			r := gb(t, home, "", "gc")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, "removed gb-")
			des, _ = os.ReadDir(bundles)
			assert.Empty(t, des, "no bundle left")
			assert.Equal(t, 0, running(rt, state), "no container left")
			assert.Eventually(t, func() bool { return !sleeping(marker) }, 10*time.Second, 100*time.Millisecond, "no process left")
		})
	}
}

// running counts the containers the runtime knows in golem-box's state.
func running(rt, state string) int {
	out, _ := exec.Command(rt, "--root", filepath.Join(state, "runtime", rt), "list", "-q").Output()
	return len(strings.Fields(string(out)))
}

// sleeping reports whether the killed run's shell is still alive.
func sleeping(marker string) bool {
	out, _ := exec.Command("pgrep", "-f", marker).Output()
	return strings.TrimSpace(string(out)) != ""
}

// TestSIGTERMCleansUp: a terminated golem-box kills its container and
// removes its bundle before it exits; no gc needed. The signal comes once
// the container runs, and also at once, while the runtime is still
// creating it.
func TestSIGTERMCleansUp(t *testing.T) {
	for _, tc := range []struct {
		rt    string
		early bool
	}{{"runc", false}, {"crun", false}, {"runc", true}, {"crun", true}} {
		t.Run(fmt.Sprintf("%s/early=%v", tc.rt, tc.early), func(t *testing.T) {
			home := seedTree(t)
			state := t.TempDir()
			t.Setenv("GOLEM_BOX_STATE_DIR", state)
			marker := "golem-sigterm-" + tc.rt + "-" + filepath.Base(home)
			cmd := exec.Command(binary, "--root", filepath.Join(home, "project"), "run", "--runtime", tc.rt, "--", "sh", "-c", "echo "+marker+" >/dev/null; sleep 300")
			cmd.Dir = home
			require.NoError(t, cmd.Start())
			bundles := filepath.Join(state, "bundles")
			if tc.early {
				// The bundle exists: golem-box handles signals and the
				// runtime is creating the container, or about to.
				require.Eventually(t, func() bool {
					des, _ := os.ReadDir(bundles)
					return len(des) == 1
				}, 20*time.Second, time.Millisecond)
			} else {
				require.Eventually(t, func() bool { return running(tc.rt, state) == 1 }, 20*time.Second, 50*time.Millisecond)
			}
			start := time.Now()
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			err := cmd.Wait()
			assert.Less(t, time.Since(start), 15*time.Second, "golem-box must not wait for the command")
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.NotEqual(t, 0, ee.ExitCode())
			des, _ := os.ReadDir(bundles)
			assert.Empty(t, des, "the bundle is removed")
			assert.Equal(t, 0, running(tc.rt, state), "no container left")
			assert.Eventually(t, func() bool { return !sleeping(marker) }, 10*time.Second, 100*time.Millisecond, "no process left")
		})
	}
}

func TestImageBuildAndRun(t *testing.T) {
	home := seedTree(t)
	t.Setenv("GOLEM_BOX_STATE_DIR", t.TempDir())
	t.Setenv("GOLEM_BOX_IMAGES", t.TempDir())
	r := gb(t, home, "", "image", "build", "--from-host", "--name", "mini:1", "sh", "cat", "ls")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "mini:1")
	r = gb(t, home, "", "image", "ls")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "from-host sh cat ls")

	r = gb(t, home, "", "--root", "project", "run", "--image", "mini:1", "--", "sh", "-c", "ls /usr/bin; cat /src/app.ts; ls /usr/lib/python3 2>&1 || true")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.GreaterOrEqual(t, len(lines), 5, r.stdout)
	assert.Equal(t, []string{"cat", "ls", "sh", "export {}"}, lines[:4], "only the image's binaries, and the sandbox's files")
	assert.Contains(t, r.stdout, "No such file", "nothing else of the host")

	r = gb(t, home, "", "--root", "project", "run", "--image", "nope:1", "--", "true")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "image not found")
	r = gb(t, home, "", "image", "rm", "mini:1")
	require.Equal(t, 0, r.code, r.stderr)
	r = gb(t, home, "", "image", "build", "sh")
	assert.Equal(t, 2, r.code, "golem-box never pulls: only --from-host builds")
}
