package indexer

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

func word32(v int64) []byte { return common.BigToHash(big.NewInt(v)).Bytes() }

func topicAddr(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

func TestTokenTransfersShapes(t *testing.T) {
	from, to, op := common.HexToAddress("0x01"), common.HexToAddress("0x02"), common.HexToAddress("0x03")
	token := common.HexToAddress("0x70")
	batchData := append(append(append(append(append(append(word32(64), word32(160)...), word32(2)...), word32(7)...), word32(9)...),
		word32(2)...), append(word32(100), word32(200)...)...)
	logs := []explorer.Log{
		{Index: 0, Address: token, Topics: []common.Hash{topicTransfer, topicAddr(from), topicAddr(to)}, Data: word32(5)},
		{Index: 1, Address: token, Topics: []common.Hash{topicTransfer, topicAddr(from), topicAddr(to), common.BigToHash(big.NewInt(42))}},
		{Index: 2, Address: token, Topics: []common.Hash{topicTransferSingle, topicAddr(op), topicAddr(from), topicAddr(to)},
			Data: append(word32(3), word32(4)...)},
		{Index: 3, Address: token, Topics: []common.Hash{topicTransferBatch, topicAddr(op), topicAddr(from), topicAddr(to)}, Data: batchData},
		// Not transfers: a Transfer with 2 topics, one with data and 4
		// topics, a batch whose arrays overrun the data, a huge offset.
		{Index: 4, Address: token, Topics: []common.Hash{topicTransfer, topicAddr(from)}, Data: word32(1)},
		{Index: 5, Address: token, Topics: []common.Hash{topicTransfer, topicAddr(from), topicAddr(to), {}}, Data: word32(1)},
		{Index: 6, Address: token, Topics: []common.Hash{topicTransferBatch, topicAddr(op), topicAddr(from), topicAddr(to)}, Data: batchData[:200]},
		{Index: 7, Address: token, Topics: []common.Hash{topicTransferBatch, topicAddr(op), topicAddr(from), topicAddr(to)},
			Data: append(common.MaxHash.Bytes(), word32(0)...)},
	}
	got := TokenTransfers(&explorer.Block{Number: 9}, logs)
	var s []string
	for _, tt := range got {
		s = append(s, fmt.Sprintf("%d.%d %s %v %s", tt.LogIndex, tt.BatchIndex, tt.Type, tt.TokenID, tt.Amount))
	}
	want := "0.0 ERC-20 <nil> 5|1.0 ERC-721 42 1|2.0 ERC-1155 3 4|3.0 ERC-1155 7 100|3.1 ERC-1155 9 200"
	if strings.Join(s, "|") != want {
		t.Fatalf("got %s\nwant %s", strings.Join(s, "|"), want)
	}
	if got[2].From != from || got[2].To != to || !got[4].Batch || got[0].Batch {
		t.Fatalf("sides/batch: %+v", got)
	}
}

func TestDecodeString(t *testing.T) {
	abiString := append(append(word32(32), word32(3)...), common.RightPadBytes([]byte("EMB"), 32)...)
	bytes32 := common.RightPadBytes([]byte("MKR"), 32)
	for _, c := range []struct {
		in   []byte
		want string
	}{{abiString, "EMB"}, {bytes32, "MKR"}, {word32(1)[:31], "<nil>"}, {append(word32(32), word32(1000)...), "<nil>"}} {
		got := "<nil>"
		if s := decodeString(c.in, maxTokenString); s != nil {
			got = *s
		}
		if got != c.want {
			t.Fatalf("decodeString(%x) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDecodeLongString: names and symbols are cut to maxTokenString bytes,
// a metadata URI (an on-chain data: URI) is kept whole up to maxTokenURI.
func TestDecodeLongString(t *testing.T) {
	long := "data:application/json;base64," + strings.Repeat("QUJD", 300) // 1,229 bytes
	padded := common.RightPadBytes([]byte(long), (len(long)+31)/32*32)
	out := append(append(word32(32), word32(int64(len(long)))...), padded...)
	if s := decodeString(out, maxTokenString); s == nil || *s != long[:maxTokenString] {
		t.Fatalf("name cut: %v", s)
	}
	if s := decodeString(out, maxTokenURI); s == nil || *s != long {
		t.Fatalf("URI kept whole: %v", s)
	}
}

func TestMetadataSources(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok.json", "/ipfs/QmCID/1.json":
			fmt.Fprint(w, `{"name": "ok"}`)
		case "/big.json":
			fmt.Fprint(w, `{"x":"`+strings.Repeat("a", MetadataMaxSize)+`"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	f := NewMetadataFetcher(nil, nil, srv.URL+"/ipfs", nil)
	b64 := base64.StdEncoding.EncodeToString([]byte(`{"image":"i"}`))
	for uri, want := range map[string]string{
		"data:application/json;base64," + b64:                         `{"image":"i"}`,
		"data:application/json;base64," + strings.TrimRight(b64, "="): `{"image":"i"}`,
		`data:application/json,{"a":1}`:                               `{"a":1}`,
		`data:application/json,%7B%22a%22%3A2%7D`:                     `{"a":2}`,
		srv.URL + "/ok.json":                                          `{"name":"ok"}`,
		"ipfs://QmCID/1.json":                                         `{"name":"ok"}`,
		"ipfs://ipfs/QmCID/1.json":                                    `{"name":"ok"}`,
		`{"raw": true}`:                                               `{"raw":true}`,
		srv.URL + "/missing.json":                                     "fetch: HTTP 404",
		srv.URL + "/big.json":                                         "larger than",
		"ftp://x/1.json":                                              "unsupported URI scheme",
		"data:application/json;base64,!!!":                            "bad base64",
		"data:text/plain,hello":                                       "not a JSON object",
	} {
		body, err := f.get(context.Background(), uri)
		var got string
		if err == nil {
			meta, jerr := metadataJSON(body)
			if jerr != nil {
				got = jerr.Error()
			} else {
				got = string(meta)
			}
		} else {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Fatalf("%s: %q, want %q", uri, got, want)
		}
	}
}
