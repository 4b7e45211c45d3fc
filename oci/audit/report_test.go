package audit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "suppressions.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestLoadSuppressions(t *testing.T) {
	p := writeFile(t, "suppress:\n  - rule: GB501\n    reason: bounded by the runner's cgroup\n  - rule: host-network\n    target: \"ci-*\"\n    reason: the CI proxy listens on the host\n")
	got, err := LoadSuppressions(p)
	require.NoError(t, err)
	assert.Equal(t, []Suppression{{Rule: "GB501", Reason: "bounded by the runner's cgroup"}, {Rule: "host-network", Target: "ci-*", Reason: "the CI proxy listens on the host"}}, got)
}

func TestLoadSuppressionsErrorsNameFileLineFieldAndFix(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"no reason", "suppress:\n  - rule: GB501\n", "suppressions.yaml:2: suppress[0].reason: required: say why this finding is accepted"},
		{"blank reason", "suppress:\n  - rule: GB501\n    reason: \"  \"\n", "suppress[0].reason: required"},
		{"no rule", "suppress:\n  - reason: because\n", "suppressions.yaml:2: suppress[0].rule: required"},
		{"unknown rule", "suppress:\n  - rule: GB999\n    reason: x\n", "suppress[0].rule: no such rule \"GB999\": golem-box audit --list-rules lists them"},
		{"typo in a key", "suppress:\n  - rule: GB501\n    reasn: x\n", "suppressions.yaml:2: suppress[0].reasn: unknown key: use rule, target and reason"},
		{"bad pattern", "suppress:\n  - rule: GB501\n    target: \"[\"\n    reason: x\n", "suppress[0].target: bad pattern"},
		{"unknown top-level key", "supress:\n  - rule: GB501\n", "field supress not found"},
		{"not a mapping", "suppress:\n  - GB501\n", "suppress[0]: must be a mapping with rule and reason"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSuppressions(writeFile(t, c.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := LoadSuppressions(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.ErrorContains(t, err, "missing.yaml")
}

func TestIgnoreSuppressAndFailOn(t *testing.T) {
	subjects, err := Parse("ci-job.json", []byte(`{"Name": "/ci-job", "HostConfig": {"NetworkMode": "host", "CapDrop": ["ALL"], "ReadonlyRootfs": true,
		"Memory": 1073741824, "MemorySwap": 1073741824, "PidsLimit": 100, "NanoCpus": 1000000000, "CgroupnsMode": "private",
		"SecurityOpt": ["no-new-privileges"]}, "Config": {"User": "1000"}, "AppArmorProfile": "docker-default"}`))
	require.NoError(t, err)

	rep := &Report{}
	rep.Add(Options{}, subjects...)
	assert.True(t, rep.Fails(High), "GB201 is high")
	assert.False(t, rep.Fails(Critical))

	// A suppression whose target does not match changes nothing.
	rep = &Report{}
	rep.Add(Options{Suppressions: []Suppression{{Rule: "GB201", Target: "prod-*", Reason: "x"}}}, subjects...)
	assert.True(t, rep.Fails(High))

	// Matching by container name: the finding stays, marked, and no longer fails.
	rep = &Report{}
	rep.Add(Options{Suppressions: []Suppression{{Rule: "host-network", Target: "ci-*", Reason: "the CI proxy"}}}, subjects...)
	assert.False(t, rep.Fails(High))
	assert.True(t, rep.Fails(Low), "GB205 (no user namespace) remains")
	active, suppressed := rep.Counts()
	assert.Equal(t, 1, suppressed)
	assert.Zero(t, active[High])
	found := false
	for _, f := range rep.Results[0].Findings {
		if f.RuleID == "GB201" {
			found = true
			assert.Equal(t, "the CI proxy", f.Suppressed)
		}
	}
	assert.True(t, found)

	// Ignored rules disappear.
	rep = &Report{}
	rep.Add(Options{Ignore: []string{"GB201", "no-user-namespace", "gb404"}}, subjects...)
	assert.Empty(t, rep.Results[0].Findings)
	assert.Equal(t, []string{"GB201", "GB205", "GB404"}, rep.Ignored)
	assert.False(t, rep.Fails(Info))

	assert.ErrorContains(t, Options{Ignore: []string{"GB000"}}.Validate(), "--ignore GB000: no such rule")
}

func TestParseSeverity(t *testing.T) {
	s, err := ParseSeverity(" HIGH ")
	require.NoError(t, err)
	assert.Equal(t, High, s)
	_, err = ParseSeverity("severe")
	assert.ErrorContains(t, err, "use critical, high, medium, low or info")
}
