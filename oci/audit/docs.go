package audit

import (
	"fmt"
	"io"
	"strings"
)

// WriteRulesMarkdown writes the rule table as the Markdown page
// docs/audit-rules.md; a test keeps that page in sync with Rules.
func WriteRulesMarkdown(w io.Writer) error {
	rs := Rules()
	var b strings.Builder
	b.WriteString("# golem-box audit rules\n\n")
	b.WriteString("<!-- Generated from oci/audit by `go test ./oci/audit -update`; do not edit by hand. -->\n\n")
	b.WriteString("`golem-box audit` reads an OCI `config.json` or `docker inspect` output and reports the settings below. ")
	b.WriteString("Field names are given in both syntaxes: OCI paths (`process.capabilities`) and Docker inspect paths (`HostConfig.CapAdd`). ")
	b.WriteString("CIS references are to the CIS Docker Benchmark v1.6.0.\n\n")
	count := map[Severity]int{}
	for _, r := range rs {
		count[r.Severity]++
	}
	fmt.Fprintf(&b, "%d rules:", len(rs))
	for i, s := range Severities {
		sep := ","
		if i == len(Severities)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " %d %s%s", count[s], s, sep)
	}
	b.WriteString("\n\n| ID | Severity | Name | Title |\n|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | `%s` | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity, r.Name, r.Title)
	}
	for _, r := range rs {
		fmt.Fprintf(&b, "\n## %s\n\n**%s** · %s · `%s`\n\n", r.ID, r.Title, r.Severity, r.Name)
		fmt.Fprintf(&b, "- **Reads:** %s\n- **Why it matters:** %s\n- **Fix:** %s\n", r.Field, r.Why, r.Fix)
		if len(r.Refs) > 0 {
			fmt.Fprintf(&b, "- **References:** %s\n", strings.Join(r.Refs, ", "))
		}
		if r.Implied {
			b.WriteString("- Not repeated for Docker containers with `--privileged`: GB101 reports them.\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
