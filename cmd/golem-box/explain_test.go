package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/pkg/xattr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExplainRoutesByProvenance: the same command runs under bubblewrap
// while everything it can reach is the user's, and in a container once a
// downloaded file (user.xdg.origin.url) sits under one of its mounts.
func TestExplainRoutesByProvenance(t *testing.T) {
	home := seedTree(t)
	inbox := filepath.Join(home, "Downloads")
	require.NoError(t, os.MkdirAll(inbox, 0o755))
	doc := filepath.Join(inbox, "invoice.pdf")
	require.NoError(t, os.WriteFile(doc, []byte("%PDF"), 0o644))
	flags := []string{"--root", filepath.Join(home, "project"), "--mount", "type=bind,source=" + inbox + ",target=/in,readonly"}

	r := gb(t, home, "", append(flags, "run", "--explain", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "backend:   bwrap (os)")
	assert.Contains(t, r.stdout, "content:   trusted")
	r = gb(t, home, "", append(flags, "run", "--", "cat", "/in/invoice.pdf")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "%PDF", r.stdout)

	require.NoError(t, xattr.Set(doc, "user.xdg.origin.url", []byte("https://mail.example/attachments/invoice.pdf")))
	r = gb(t, home, "", append(flags, "run", "--explain", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "backend:   oci (container)")
	assert.Contains(t, r.stdout, "content:   untrusted")
	assert.Contains(t, r.stdout, "untrusted: "+doc+" carries a provenance mark (user.xdg.origin.url=https://mail.example/attachments/invoice.pdf)")
	assert.Regexp(t, `(?m)^\s+bwrap\s+os\s+excluded: untrusted content must run in a container`, r.stdout)

	r = gb(t, home, "", append(flags, "-o", "json", "run", "--explain", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	var e struct {
		Backend string `json:"backend"`
		Trust   struct {
			Untrusted bool `json:"untrusted"`
			Reasons   []struct {
				Kind, Path string
			} `json:"reasons"`
		} `json:"trust"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &e), r.stdout)
	assert.Equal(t, "oci", e.Backend)
	assert.True(t, e.Trust.Untrusted)
	assert.Equal(t, doc, e.Trust.Reasons[0].Path)

	// An OS sandbox asked for by name is refused, and nothing runs.
	r = gb(t, home, "", append(flags, "run", "--backend", "bwrap", "--", "sh", "-c", "echo ran")...)
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "must run in a container")
	assert.NotContains(t, r.stdout, "ran")

	// --trusted vouches for it, and says what it overrode.
	r = gb(t, home, "", append(flags, "run", "--trusted", "--explain", "--", "true")...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "backend:   bwrap (os)")
	assert.Contains(t, r.stdout, "overridden by --trusted: untrusted: "+doc)
}
