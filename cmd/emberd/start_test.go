package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/emberchain/ember/node/config"
)

// TestResolveStateSync: without --statesync.rpc-servers nothing changes;
// both trust flags given are kept and state sync is enabled; one trust
// flag alone is refused before any server is asked.
func TestResolveStateSync(t *testing.T) {
	parse := func(args ...string) *pflag.FlagSet {
		fs := pflag.NewFlagSet("start", pflag.ContinueOnError)
		config.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs
	}
	fs := parse()
	if err := resolveStateSync(fs, io.Discard); err != nil || fs.Lookup("statesync.enable").Changed {
		t.Fatalf("no servers: %v, enable changed %v", err, fs.Lookup("statesync.enable").Changed)
	}
	fs = parse("--statesync.rpc-servers", "a:1,b:2", "--statesync.trust-height", "7", "--statesync.trust-hash", "AB")
	if err := resolveStateSync(fs, io.Discard); err != nil {
		t.Fatal(err)
	}
	if v := fs.Lookup("statesync.enable").Value.String(); v != "true" {
		t.Fatalf("statesync.enable %s", v)
	}
	if h := fs.Lookup("statesync.trust-height").Value.String(); h != "7" {
		t.Fatalf("trust height %s", h)
	}
	fs = parse("--statesync.rpc-servers", "a:1", "--statesync.trust-height", "7")
	if err := resolveStateSync(fs, io.Discard); err == nil || !strings.Contains(err.Error(), "together, or neither") {
		t.Fatalf("height alone: %v", err)
	}
}
