package main

import (
	"encoding/json"
	"testing"

	"github.com/golem-box/golem-box/doctor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func doctorJSON(t *testing.T, r result) map[string]doctorEntry {
	t.Helper()
	var rep struct {
		Host     doctor.Host   `json:"host"`
		Backends []doctorEntry `json:"backends"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	out := map[string]doctorEntry{}
	for _, b := range rep.Backends {
		out[b.Backend] = b
	}
	return out
}

type doctorEntry struct {
	Backend string `json:"backend"`
	Usable  bool   `json:"usable"`
	Version string `json:"version"`
	Reason  string `json:"reason"`
	Fix     string `json:"fix"`
}

// scripts/setup installed and started everything: doctor says so.
func TestDoctorThisMachine(t *testing.T) {
	r := gb(t, t.TempDir(), "", "-o", "json", "doctor")
	require.Equal(t, 0, r.code, r.stderr)
	got := doctorJSON(t, r)
	for _, name := range []string{"oci/runc", "oci/crun", "docker", "containerd", "bwrap", "landlock"} {
		require.Contains(t, got, name)
		assert.True(t, got[name].Usable, "%s: %+v", name, got[name])
		assert.NotEmpty(t, got[name].Version, name)
	}
	r = gb(t, t.TempDir(), "", "doctor")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^docker\s+yes\s+\S+`, r.stdout)
	assert.Contains(t, r.stdout, "host: kernel ")
}

// A daemon that is down and a runtime that is missing are named, with the
// fix; no container backend is exit status 1. Landlock needs no binary.
func TestDoctorTellsWhatIsMissing(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	t.Setenv("CONTAINERD_ADDRESS", "/nonexistent/containerd.sock")
	t.Setenv("PATH", t.TempDir())
	r := gb(t, t.TempDir(), "", "-o", "json", "doctor")
	assert.Equal(t, 1, r.code, "no container backend: %s", r.stderr)
	got := doctorJSON(t, r)
	assert.Contains(t, got["docker"].Reason, "not reachable")
	assert.Contains(t, got["docker"].Fix, "scripts/setup")
	assert.Contains(t, got["containerd"].Reason, "/nonexistent/containerd.sock")
	assert.Contains(t, got["oci/runc"].Reason, "runc not found")
	assert.Contains(t, got["oci/runc"].Fix, "apt-get install runc")
	assert.Contains(t, got["oci/crun"].Fix, "apt-get install crun")
	assert.Contains(t, got["bwrap"].Fix, "apt-get install bubblewrap")
	for _, d := range got {
		assert.Equal(t, d.Backend == "landlock", d.Usable, d.Backend)
	}
}
