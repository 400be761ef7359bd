package writes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// A burst's sends go through rawConn, not go-ethereum's rpc client: with
// it, the load generator took 0.47 cores (~150 µs per transfer: JSON
// encoding, net/http's transport goroutines) from a 2-core machine the node
// shares. Like wrk, rawConn writes requests built before the clock starts
// on a kept-alive connection and reads the answer, so the node gets the CPU.

// sendRequest is one pre-built eth_sendRawTransaction: the whole HTTP
// request and the hash the node must answer with.
type sendRequest struct {
	wire []byte
	hash string
}

// buildSend encodes tx as an HTTP/1.1 POST of eth_sendRawTransaction to
// host (host:port) at path.
func buildSend(host, path string, id int, tx *types.Transaction) (sendRequest, error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return sendRequest{}, err
	}
	body := []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) +
		`,"method":"eth_sendRawTransaction","params":["` + hexutil.Encode(raw) + `"]}`)
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, host, len(body))
	b.Write(body)
	return sendRequest{wire: b.Bytes(), hash: tx.Hash().Hex()}, nil
}

// rawConn is one kept-alive HTTP/1.1 connection to a JSON-RPC endpoint.
type rawConn struct {
	conn net.Conn
	r    *bufio.Reader
	body bytes.Buffer
}

// endpoint splits a JSON-RPC URL into the dial address and request path.
func endpoint(rawURL string) (host, path string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", err
	}
	if u.Scheme != "http" {
		return "", "", fmt.Errorf("burst sends need an http:// endpoint, not %q", rawURL)
	}
	path = u.RequestURI()
	return u.Host, path, nil
}

func dialRaw(host string) (*rawConn, error) {
	conn, err := net.Dial("tcp", host)
	if err != nil {
		return nil, err
	}
	return &rawConn{conn: conn, r: bufio.NewReaderSize(conn, 4096)}, nil
}

// send writes req and checks that the node answered with its hash.
func (c *rawConn) send(req sendRequest) error {
	if _, err := c.conn.Write(req.wire); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return err
	}
	c.body.Reset()
	_, err = c.body.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s: %s", resp.Status, c.body.Bytes())
	}
	var answer struct {
		Result string
		Error  *struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(c.body.Bytes(), &answer); err != nil {
		return fmt.Errorf("answer %q: %w", c.body.Bytes(), err)
	}
	if answer.Error != nil {
		return fmt.Errorf("%s (code %d)", answer.Error.Message, answer.Error.Code)
	}
	if answer.Result != req.hash {
		return fmt.Errorf("answer %q, want hash %s", c.body.Bytes(), req.hash)
	}
	return nil
}

func (c *rawConn) Close() error { return c.conn.Close() }
