package audit

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	stdtime "time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveImage is an empty image imported locally: docker create needs an
// image but never runs it, and tests never pull.
const liveImage = "golem-box-audit-empty:1"

// docker runs the docker CLI, the way a user captures inspect output.
func docker(t *testing.T, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("docker", args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "docker %s: %s (the engine must run here: scripts/setup starts it)", strings.Join(args, " "), stderr.String())
	return out
}

// emptyTar is a tar archive with no entries: two zero blocks.
var emptyTar = make([]byte, 1024)

// TestLiveDockerInspect creates real containers on the local engine with
// the settings security teams look for, audits what docker inspect prints
// for them, and removes them.
func TestLiveDockerInspect(t *testing.T) {
	if exec.Command("docker", "image", "inspect", liveImage).Run() != nil {
		docker(t, emptyTar, "import", "-", liveImage)
	}
	cases := []struct {
		name      string
		flags     []string
		raise     []string
		notRaised []string
	}{
		{"privileged", []string{"--privileged"}, []string{"GB101"}, []string{"GB103", "GB401", "GB601", "GB314"}},
		{"cap-add-sys-admin", []string{"--cap-add", "SYS_ADMIN"}, []string{"GB103", "GB120"}, []string{"GB101", "GB102"}},
		{"network-host", []string{"--network", "host"}, []string{"GB201"}, []string{"GB202", "GB101"}},
		{"host-root-bind", []string{"-v", "/:/host"}, []string{"GB301"}, []string{"GB302", "GB101"}},
		{"docker-socket", []string{"-v", "/var/run/docker.sock:/var/run/docker.sock"}, []string{"GB302"}, []string{"GB301"}},
		{"seccomp-unconfined", []string{"--security-opt", "seccomp=unconfined"}, []string{"GB401"}, []string{"GB404", "GB101"}},
		{"pid-host", []string{"--pid", "host"}, []string{"GB202"}, []string{"GB201"}},
		// What plain docker create gives: the defaults CIS flags, and none
		// of the above.
		{"defaults", nil, []string{"GB117", "GB120", "GB404", "GB408", "GB501", "GB502"},
			[]string{"GB101", "GB103", "GB201", "GB202", "GB301", "GB302", "GB401", "GB314", "GB315"}},
		{"hardened", []string{"--user", "1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
			"-m", "256m", "--memory-swap", "256m", "--pids-limit", "64", "--cpus", "1", "--network", "none", "--cgroupns", "private",
			"-v", "/tmp:/data:ro"},
			[]string{"GB310"}, []string{"GB117", "GB120", "GB121", "GB206", "GB316", "GB408", "GB501", "GB502", "GB503", "GB504"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("golem-box-audit-%s-%d", c.name, uniq())
			args := append([]string{"create", "--name", name}, c.flags...)
			docker(t, nil, append(args, liveImage, "/x")...)
			t.Cleanup(func() { _ = exec.Command("docker", "rm", "-f", name).Run() })
			data := docker(t, nil, "inspect", name)
			subjects, err := Parse("docker inspect "+name, data)
			require.NoError(t, err)
			require.Len(t, subjects, 1)
			s := subjects[0]
			assert.Equal(t, FormatDocker, s.Format)
			assert.Equal(t, name, s.Name)
			got := map[string]Finding{}
			for _, f := range Check(s) {
				got[f.RuleID] = f
			}
			for _, id := range c.raise {
				assert.Contains(t, got, id, "docker create %s must raise %s", strings.Join(c.flags, " "), id)
			}
			for _, id := range c.notRaised {
				assert.NotContains(t, got, id, "docker create %s must not raise %s: %s", strings.Join(c.flags, " "), id, got[id].Message)
			}
		})
	}
}

// uniq keeps container names apart across runs and parallel packages.
func uniq() int64 { return stdtime.Now().UnixNano() }
