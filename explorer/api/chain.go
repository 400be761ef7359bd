package api

// ChainInfo is what wallets need to add the chain and what the pages
// cannot learn from the EVM's JSON-RPC: the Cosmos side's chain id, base
// denomination and endpoints (Keplr's experimentalSuggestChain), set by
// whoever starts the explorer; "" = unknown (null in the answer).
type ChainInfo struct {
	CosmosChainID string // CometBFT chain id: ember_31337-1
	Denom         string // the native coin's base denomination (18 decimals)
	CometRPCURL   string // CometBFT RPC, http(s)://
	RESTURL       string // the Cosmos REST gateway
}

// chainConfig is /api/v2/config/chain (Ember's).
type chainConfig struct {
	Bech32Prefix  string  `json:"bech32_prefix"`
	CometRPCURL   *string `json:"cometbft_rpc_url"`
	CosmosChainID *string `json:"cosmos_chain_id"`
	Denom         *string `json:"denom"`
	JSONRPCURL    *string `json:"json_rpc_url"`
	RESTURL       *string `json:"rest_url"`
}

func (h *handlers) chainConfig(*request) (any, error) {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	c := h.b.Info
	return chainConfig{Bech32Prefix: h.b.Prefix, CometRPCURL: opt(c.CometRPCURL), CosmosChainID: opt(c.CosmosChainID),
		Denom: opt(c.Denom), JSONRPCURL: opt(h.b.JSONRPCURL), RESTURL: opt(c.RESTURL)}, nil
}
