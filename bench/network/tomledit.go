package main

import (
	"fmt"
	"os"
	"strings"
)

// tomlEdits are the values to set in a TOML file: section ("" for the top
// level) → key → the value as a TOML literal (`"1s"`, `true`, `5000`).
type tomlEdits map[string]map[string]string

// setTOML rewrites the `key = value` lines of path that edits names, in
// place. Both chains write their config.toml and app.toml from templates
// with every key present, so a key that is not found is an error (a
// renamed key would otherwise leave a setting silently at its old value).
func setTOML(path string, edits tomlEdits) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(raw), "\n")
	done := map[string]bool{}
	section := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[]")
			continue
		}
		key, _, ok := strings.Cut(t, "=")
		if !ok || strings.HasPrefix(t, "#") {
			continue
		}
		key = strings.TrimSpace(key)
		if v, ok := edits[section][key]; ok {
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			lines[i] = indent + key + " = " + v
			done[section+"."+key] = true
		}
	}
	for section, kv := range edits {
		for key := range kv {
			if !done[section+"."+key] {
				return fmt.Errorf("%s: no key %s in section [%s]", path, key, section)
			}
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// quote is v as a TOML string.
func quote(v string) string { return fmt.Sprintf("%q", v) }
