package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// blockscoutSpec is Blockscout's hand-written API v2 spec (testdata/README.md).
const blockscoutSpec = "testdata/blockscout-api-v2.yaml"

// specNullable lists the properties the YAML declares non-null although
// Blockscout's front end reads them as "|null" (blockscout-fields.md, the
// other contract) and the real backend sends null for them: no name tag,
// no price source, no decoded ABI, a pending transaction's block fields.
var specNullable = map[string][]string{
	"AddressParam":                  {"implementation_name", "name", "ens_domain_name", "metadata"},
	"Address":                       {"creator_address_hash", "creation_transaction_hash", "exchange_rate", "name", "implementation_name", "token", "ens_domain_name"},
	"Block":                         {"total_difficulty", "base_fee_per_gas"},
	"Transaction":                   {"method", "exchange_rate", "decoded_input", "revert_reason", "transaction_tag", "has_error_in_internal_transactions", "max_fee_per_gas", "max_priority_fee_per_gas", "created_contract", "to", "timestamp", "block_number", "status", "gas_used", "position", "priority_fee", "base_fee_per_gas", "transaction_burnt_fee"},
	"Log":                           {"decoded"},
	"StatsResponse":                 {"coin_price", "gas_prices", "static_gas_price", "market_cap", "transactions_today"},
	"SearchResultAddressOrContract": {"name"},
	"SearchResultRedirect":          {"type", "parameter"},
	"CoinBalanceHistoryEntry":       {"transaction_hash"},
}

// specTypes corrects types where the YAML contradicts blockscout-fields.md
// and the backend: a transaction's gas_limit is a decimal string like every
// other gas amount, and confirmation_duration is a number array.
var specTypes = map[string]map[string]any{
	"Transaction": {
		"gas_limit":             map[string]any{"type": "string"},
		"confirmation_duration": map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
		// {raw} or a DecodedInput (blockscout-fields.md, and the 11.2.7
		// spec's oneOf); the YAML's string is the "Awaiting…" text of old.
		"revert_reason": map[string]any{"type": "object", "nullable": true},
	},
}

// blockscoutSchemas compiles the spec's component schemas (OpenAPI 3.0
// turned into JSON Schema: nullable becomes a null type) with the two
// corrections above.
type blockscoutSchemas struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

func loadBlockscoutSchemas(t *testing.T) *blockscoutSchemas {
	t.Helper()
	raw, err := os.ReadFile(blockscoutSpec)
	if err != nil {
		t.Fatalf("read spec: %v", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parse spec: %v", err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, props := range specNullable {
		p := schemas[name].(map[string]any)["properties"].(map[string]any)
		for _, prop := range props {
			if ps, ok := p[prop].(map[string]any); ok { // a property the YAML omits is not checked at all
				ps["nullable"] = true
			}
		}
	}
	for name, props := range specTypes {
		p := schemas[name].(map[string]any)["properties"].(map[string]any)
		for prop, s := range props {
			p[prop] = s
		}
	}
	converted := toJSONSchema(map[string]any{"components": map[string]any{"schemas": schemas}})
	buf, _ := json.Marshal(converted)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("file:///blockscout.json", inst); err != nil {
		t.Fatal(err)
	}
	return &blockscoutSchemas{c: c, cache: map[string]*jsonschema.Schema{}}
}

// toJSONSchema rewrites OpenAPI 3.0 nullable (spelled "true," once in the
// YAML) into JSON Schema and drops examples.
func toJSONSchema(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if k == "example" || k == "nullable" {
				continue
			}
			out[k] = toJSONSchema(x)
		}
		if n, ok := v["nullable"]; ok && (n == true || n == "true,") {
			if ref, ok := out["$ref"]; ok {
				delete(out, "$ref")
				out["anyOf"] = []any{map[string]any{"$ref": ref}, map[string]any{"type": "null"}}
			} else if typ, ok := out["type"].(string); ok {
				out["type"] = []any{typ, "null"}
			} else {
				out = map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
			}
			if enum, ok := out["enum"].([]any); ok {
				out["enum"] = append(enum, nil)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = toJSONSchema(x)
		}
		return out
	}
	return v
}

// schema compiles a named component, a list page of one, or an array of one
// ("page:Block", "array:Block").
func (b *blockscoutSchemas) schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	if s, ok := b.cache[name]; ok {
		return s
	}
	url := "file:///blockscout.json#/components/schemas/" + name
	if kind, item, ok := strings.Cut(name, ":"); ok {
		ref := map[string]any{"$ref": "file:///blockscout.json#/components/schemas/" + item}
		if item == "Search" {
			ref = map[string]any{"oneOf": []any{
				map[string]any{"$ref": "file:///blockscout.json#/components/schemas/SearchResultToken"},
				map[string]any{"$ref": "file:///blockscout.json#/components/schemas/SearchResultAddressOrContract"},
				map[string]any{"$ref": "file:///blockscout.json#/components/schemas/SearchResultBlock"},
				map[string]any{"$ref": "file:///blockscout.json#/components/schemas/SearchResultTransaction"},
			}}
		}
		var s any = map[string]any{"type": "array", "items": ref}
		if kind == "page" {
			s = map[string]any{"type": "object", "required": []any{"items", "next_page_params"}, "properties": map[string]any{
				"items": s, "next_page_params": map[string]any{"type": []any{"object", "null"}},
			}}
		}
		url = "file:///" + kind + "-" + item + ".json"
		if err := b.c.AddResource(url, s); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	b.cache[name] = s
	return s
}

// validate checks a response body against a schema name (see schema).
func (b *blockscoutSchemas) validate(t *testing.T, name, path string, body []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: not JSON: %v: %s", path, err, body)
	}
	if err := b.schema(t, name).Validate(inst); err != nil {
		t.Fatalf("%s does not match %s: %v\n%s", path, name, err, body)
	}
}
