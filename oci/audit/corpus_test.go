package audit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// TestCorpus audits every hand-made bad spec in testdata/corpus and
// requires exactly the rules expect.yaml lists for it: each listed rule
// fires, and no other does.
func TestCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/corpus/expect.yaml")
	require.NoError(t, err)
	var expect map[string][]string
	require.NoError(t, yaml.Unmarshal(data, &expect))
	files, err := filepath.Glob("testdata/corpus/*.json")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 30, "the issue asks for at least 30 bad specs")
	require.Len(t, expect, len(files), "every corpus file has an expectation and every expectation a file")

	fired := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			want, ok := expect[name]
			require.True(t, ok, "expect.yaml has no entry for %s", name)
			got := ruleIDs(t, f)
			for id := range got {
				fired[id] = true
			}
			wantSet := map[string]bool{}
			for _, id := range want {
				_, known := Lookup(id)
				require.True(t, known, "expect.yaml names unknown rule %s", id)
				wantSet[id] = true
			}
			assert.Equal(t, sortedKeys(wantSet), sortedKeys(got))
		})
	}
	// Every rule is proven to fire by at least one corpus file.
	for _, r := range Rules() {
		assert.True(t, fired[r.ID], "no corpus file raises %s (%s): add one", r.ID, r.Name)
	}
}

func ruleIDs(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	subjects, err := Read(file, f)
	require.NoError(t, err)
	got := map[string]bool{}
	for _, s := range subjects {
		for _, fd := range Check(s) {
			got[fd.RuleID] = true
			assert.NotEmpty(t, fd.Field, "%s has no field", fd.RuleID)
			assert.NotEmpty(t, fd.Message, "%s has no message", fd.RuleID)
		}
	}
	return got
}

func sortedKeys(m map[string]bool) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
