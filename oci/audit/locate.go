package audit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// fieldLines maps every key and array element of one JSON value to the line
// it starts on, with paths in the syntax of Finding.Field (process.args[0],
// HostConfig.CapAdd). base is the value's offset in the whole input, so
// that lines count from the input's start.
func fieldLines(data []byte, base int) map[string]int {
	raw := data[base:]
	dec := json.NewDecoder(bytes.NewReader(raw))
	lines := map[string]int{}
	line, at := 1+bytes.Count(data[:base], []byte{'\n'}), 0
	// lineAt advances monotonically: offsets only grow during the walk.
	lineAt := func(off int) int {
		for off < len(raw) && strings.IndexByte(" \t\r\n,:", raw[off]) >= 0 {
			off++
		}
		line += bytes.Count(raw[at:off], []byte{'\n'})
		at = off
		return line
	}
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return true
		}
		for i := 0; dec.More(); i++ {
			start := lineAt(int(dec.InputOffset()))
			p := path + "[" + strconv.Itoa(i) + "]"
			if d == '{' {
				key, err := dec.Token()
				if err != nil {
					return false
				}
				p = path + "." + key.(string)
			}
			p = strings.TrimPrefix(p, ".")
			if _, seen := lines[p]; !seen {
				lines[p] = start
			}
			if !walk(p) {
				return false
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	lines[""] = lineAt(0)
	walk("")
	return lines
}

// mapKey turns a map index of a field (Sysctls[kernel.core_pattern],
// PortBindings["80/tcp"]) into the key path fieldLines records.
var mapKey = regexp.MustCompile(`\["?([^\]"]*[^0-9\]"][^\]"]*)"?\]`)

// lineOf returns the line of field in the input, or of its nearest parent
// present there (a missing linux.seccomp points at linux); 0 when unknown.
func (s *Subject) lineOf(field string) int {
	if s.lines == nil {
		return 0
	}
	p := mapKey.ReplaceAllString(field, ".$1")
	for {
		if l, ok := s.lines[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			return s.lines[""]
		}
		p = p[:i]
	}
}
