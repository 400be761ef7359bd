package rpc

import (
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestAPIListReadsBothSpellings(t *testing.T) {
	for _, doc := range []string{`api = "eth, net,web3"`, `api = ["eth", "net", "web3"]`} {
		var c struct {
			API APIList `toml:"api"`
		}
		if _, err := toml.Decode(doc, &c); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if !reflect.DeepEqual(c.API, APIList{"eth", "net", "web3"}) {
			t.Fatalf("%s: %v", doc, c.API)
		}
	}
	var c struct {
		API APIList `toml:"api"`
	}
	if _, err := toml.Decode(`api = 3`, &c); err == nil {
		t.Fatal("a number was accepted as the api list")
	}
}
