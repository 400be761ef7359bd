package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
)

// emberHome makes a home with keys funded at genesis (`emberd init`, not
// `emberd dev`, which also imports every prefunded key into a keyring: slow
// for a thousand), sized as a dev home is for load (mempool.size 50,000;
// txpool global-slots 50,000, global-queue 16,384), txpool served, and no
// block for noBlocks after the start.
func emberHome(bin string, keys []*accounts.Key) (string, error) {
	home, err := os.MkdirTemp("", "bench-txpool-ember-")
	if err != nil {
		return "", err
	}
	args := []string{"init", "bench", "--home", home, "--chain-id", "ember_31337-1"}
	for _, k := range keys {
		args = append(args, "--account", k.Address.Hex()+"=1000000000000000000000")
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("emberd init: %v\n%s", err, out)
	}
	if err := peer.BlocksEvery(home, noBlocks); err != nil {
		return "", err
	}
	if err := setKeys(filepath.Join(home, "config", "config.toml"), map[string]string{"size": "50000", "cache_size": "100000"}); err != nil {
		return "", err
	}
	return home, setKeys(filepath.Join(home, "config", "app.toml"), map[string]string{
		"api": `["eth", "net", "web3", "txpool"]`, "global-slots": "50000", "global-queue": "16384",
	})
}

// setKeys rewrites `key = value` lines of a TOML file (each key once).
func setKeys(path string, kv map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for key, v := range kv {
		re := regexp.MustCompile(`(?m)^(\s*)` + regexp.QuoteMeta(key) + ` = .*$`)
		if len(re.FindAll(b, -1)) != 1 {
			return fmt.Errorf("%s: want exactly one %s", path, key)
		}
		b = re.ReplaceAll(b, []byte("${1}"+key+" = "+v))
	}
	return os.WriteFile(path, b, 0o644)
}
