package api

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

func getCSV(t *testing.T, path string) (int, string, [][]string) {
	t.Helper()
	rec := httptest.NewRecorder()
	fakeHandler(t).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	if rec.Code != 200 {
		return rec.Code, rec.Body.String(), nil
	}
	rows, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/csv" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	return rec.Code, rec.Header().Get("Content-Disposition"), rows
}

// TestAddressTxsCSV: Blockscout's columns, each row the API list's values
// (hash, block, time, sides, value, fee, status, the failure's reason,
// method), the period and side filters, and bad parameters refused.
func TestAddressTxsCSV(t *testing.T) {
	base := "/api/v2/addresses/" + fakeAlice.Hex() + "/transactions"
	_, disposition, rows := getCSV(t, base+"/csv?from_period=2023-11-14&to_period=2023-11-14")
	if disposition != `attachment; filename="transactions_`+fakeAlice.Hex()+`.csv"` {
		t.Errorf("Content-Disposition %q", disposition)
	}
	if strings.Join(rows[0], ",") != "TxHash,BlockNumber,UnixTimestamp,FromAddress,ToAddress,ContractAddress,Type,Value,Fee,Status,ErrCode,CurrentPrice,TxDateOpeningPrice,TxDateClosingPrice,MethodName" {
		t.Fatalf("header %v", rows[0])
	}
	var list struct {
		Items []struct {
			Hash, Timestamp, Value, Status, Result string
			BlockNumber                            uint64 `json:"block_number"`
			From                                   struct{ Hash string }
			To, Created                            *struct{ Hash string }
			CreatedContract                        *struct{ Hash string } `json:"created_contract"`
			Fee                                    struct{ Value string }
			Method                                 *string
		}
		Next map[string]any `json:"next_page_params"`
	}
	_, body := get(t, fakeHandler(t), base)
	if err := json.Unmarshal(body, &list); err != nil || list.Next == nil {
		t.Fatalf("%v %s", err, body)
	}
	// The CSV holds all 59 of Alice's transactions; the API's first page 50.
	if len(rows) != 1+59 {
		t.Fatalf("%d rows, want 59", len(rows)-1)
	}
	lowerOf := func(p *struct{ Hash string }) string {
		if p == nil {
			return ""
		}
		return strings.ToLower(p.Hash)
	}
	for i, it := range list.Items {
		ts, _ := time.Parse(time.RFC3339, it.Timestamp)
		status, errCode, method := it.Status, "", ""
		if it.Status == "error" {
			errCode = it.Result
		}
		if it.Method != nil {
			method = *it.Method
		}
		want := []string{it.Hash, fmt.Sprint(it.BlockNumber), fmt.Sprint(ts.Unix()), strings.ToLower(it.From.Hash), lowerOf(it.To),
			lowerOf(it.CreatedContract), "OUT", it.Value, it.Fee.Value, status, errCode, "", "", "", method}
		if strings.Join(rows[1+i], ",") != strings.Join(want, ",") {
			t.Errorf("row %d\n%v\nwant the API's\n%v", i, rows[1+i], want)
		}
	}
	// The failed call of block 5 carries its decoded reason; the ERC-20
	// transfer its method; the deployment its contract.
	byBlock := map[string][]string{}
	for _, r := range rows[1:] {
		byBlock[r[1]] = r
	}
	if r := byBlock["5"]; r[9] != "error" || r[10] != "NotEnough(have: 1, need: 5)" || r[14] != "0xdeadbeef" {
		t.Errorf("block 5 row %v", r)
	}
	if r := byBlock["4"]; r[14] != "transfer" || r[7] != "0" || r[8] != "408000000000000" {
		t.Errorf("block 4 row %v", r)
	}
	if r := byBlock["3"]; r[4] != "" || r[5] != strings.ToLower(fakeToken.Hex()) {
		t.Errorf("block 3 row %v", r)
	}
	// A window of times (blocks 3 to 5: base+6 s to base+10 s), and Bob's
	// received transfers only.
	_, _, rows = getCSV(t, base+"/csv?from_period=2023-11-14T22:13:26Z&to_period=2023-11-14T22:13:30Z")
	if len(rows) != 4 || rows[1][1] != "5" || rows[3][1] != "3" {
		t.Errorf("window: %v", rows)
	}
	_, _, rows = getCSV(t, "/api/v2/addresses/"+fakeBob.Hex()+"/transactions/csv?from_period=2023-11-14&to_period=2023-11-14&filter_type=address&filter_value=to")
	if len(rows) != 1+55 || rows[1][6] != "IN" { // Alice's 59 but the deployment (3) and the token calls (4, 5, 7)
		t.Errorf("bob received: %d rows, first %v", len(rows)-1, rows[1])
	}
	_, _, rows = getCSV(t, "/api/v2/addresses/"+fakeBob.Hex()+"/transactions/csv?from_period=2023-11-15&to_period=2024-01-01")
	if len(rows) != 1 {
		t.Errorf("a later period: %v", rows)
	}
	for path, want := range map[string]string{
		base + "/csv?to_period=2023-11-14":                                                                               `422 {"message":"Invalid from_period: required (an ISO 8601 date, 2024-01-31, or time, 2024-01-31T12:00:00Z)"}`,
		base + "/csv?from_period=2023-13-01&to_period=2023-11-14":                                                        `422 {"message":"Invalid from_period: \"2023-13-01\" is not an ISO 8601 date or time"}`,
		base + "/csv?from_period=2023-11-14&to_period=2023-11-13":                                                        `422 {"message":"Invalid period: to_period is before from_period"}`,
		base + "/csv?from_period=2023-11-14&to_period=2023-11-14&filter_type=address":                                    `422 {"message":"Invalid filter: filter_type must be address and filter_value from or to"}`,
		"/api/v2/addresses/" + common.Address{9}.Hex() + "/transactions/csv?from_period=2023-11-14&to_period=2023-11-14": `404 {"message":"Not found"}`,
	} {
		if code, body, _ := getCSV(t, path); fmt.Sprint(code, " ", body) != want {
			t.Errorf("%s: %d %s, want %s", path, code, body, want)
		}
	}
}

// TestAddressTransfersCSV: Bob's one ERC-20 transfer with its token, amount
// and the transaction's fee.
func TestAddressTransfersCSV(t *testing.T) {
	_, disposition, rows := getCSV(t, "/api/v2/addresses/"+fakeBob.Hex()+"/token-transfers/csv?from_period=2023-11-14&to_period=2023-11-14")
	if disposition != `attachment; filename="token_transfers_`+fakeBob.Hex()+`.csv"` {
		t.Errorf("Content-Disposition %q", disposition)
	}
	want := [][]string{
		{"TxHash", "BlockNumber", "UnixTimestamp", "FromAddress", "ToAddress", "TokenContractAddress", "Type", "TokenSymbol",
			"TokensTransferred", "TransactionFee", "Status", "ErrCode", "TokenID"},
		{hashOf("tx", 4).Hex(), "4", fmt.Sprint(fakeTimeBase + 8), strings.ToLower(fakeAlice.Hex()), strings.ToLower(fakeBob.Hex()),
			strings.ToLower(fakeToken.Hex()), "IN", "FAKE", "5000000000000000000", "408000000000000", "ok", "", ""},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("rows\n%v\nwant\n%v", rows, want)
	}
	// The sender's side of the same transfer.
	_, _, rows = getCSV(t, "/api/v2/addresses/"+fakeAlice.Hex()+"/token-transfers/csv?from_period=2023-11-14&to_period=2023-11-14")
	if len(rows) != 2 || rows[1][6] != "OUT" || rows[1][0] != hashOf("tx", 4).Hex() {
		t.Errorf("alice's transfers: %v", rows)
	}
}
