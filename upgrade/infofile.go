package upgrade

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// InfoFile is the file a halting node writes for cosmovisor, under its
// home: cosmovisor watches it and switches to upgrades/<name>/bin.
const InfoFile = "upgrade-info.json"

// InfoPath is the upgrade-info.json of the node whose home is home.
func InfoPath(home string) string { return filepath.Join(home, "data", InfoFile) }

// Info is upgrade-info.json: the SDK writes its Plan with encoding/json,
// so the time is Go's zero time and the height a JSON number.
type Info struct {
	Name   string    `json:"name,omitempty"`
	Time   time.Time `json:"time"`
	Height int64     `json:"height,omitempty"`
	Info   string    `json:"info,omitempty"`
}

// WriteInfo writes upgrade-info.json for plan p halting the node at height
// (the SDK's DumpUpgradeInfoToDisk).
func WriteInfo(home string, height int64, p Plan) error {
	b, err := json.Marshal(Info{Name: p.Name, Height: height, Info: p.Info})
	if err != nil {
		return err
	}
	path := InfoPath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("unable to write upgrade info to filesystem: %w", err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("unable to write upgrade info to filesystem: %w", err)
	}
	return nil
}

// ReadInfo reads the upgrade-info.json of home.
func ReadInfo(home string) (Info, error) {
	var in Info
	b, err := os.ReadFile(InfoPath(home))
	if err != nil {
		return in, err
	}
	return in, json.Unmarshal(b, &in)
}
