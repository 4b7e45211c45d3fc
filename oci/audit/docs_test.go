package audit

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/audit-rules.md from the rule table")

const rulesDoc = "../../docs/audit-rules.md"

// TestRulesDocInSync keeps docs/audit-rules.md equal to the rule table;
// refresh it with go test ./oci/audit -update.
func TestRulesDocInSync(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteRulesMarkdown(&buf))
	if *update {
		require.NoError(t, os.MkdirAll("../../docs", 0o755))
		require.NoError(t, os.WriteFile(rulesDoc, buf.Bytes(), 0o644))
	}
	have, err := os.ReadFile(rulesDoc)
	require.NoError(t, err, "run go test ./oci/audit -update to create it")
	assert.Equal(t, buf.String(), string(have), "docs/audit-rules.md is stale: run go test ./oci/audit -update")
}

// TestRuleTable checks what every rule must carry.
func TestRuleTable(t *testing.T) {
	rs := Rules()
	require.GreaterOrEqual(t, len(rs), 45)
	id := regexp.MustCompile(`^GB[1-8][0-9]{2}$`)
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for _, r := range rs {
		assert.Regexp(t, id, r.ID)
		assert.Regexp(t, name, r.Name, r.ID)
		assert.False(t, seen[r.ID] || seen[r.Name], "duplicate %s %s", r.ID, r.Name)
		seen[r.ID], seen[r.Name] = true, true
		assert.NotZero(t, r.Severity.Rank(), r.ID)
		for what, s := range map[string]string{"title": r.Title, "field": r.Field, "why": r.Why, "fix": r.Fix} {
			assert.NotEmpty(t, s, "%s has no %s", r.ID, what)
		}
		assert.Regexp(t, `[.!)]$`, r.Why, "%s: why ends a sentence", r.ID)
		assert.Regexp(t, `[.!)]$`, r.Fix, "%s: fix ends a sentence", r.ID)
		assert.NotNil(t, r.check, r.ID)
		byName, ok := Lookup(r.Name)
		assert.True(t, ok && byName == r, r.ID)
	}
}
