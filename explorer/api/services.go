package api

// Endpoints Blockscout serves from its microservices or its config, which
// this chain answers without them.

// dataAvailability is /api/v1/<da_layer>/blob and …/l2BatchMetadata: this
// chain posts no data to a data-availability layer, so every layer's
// lookups are NOT_FOUND in the gRPC gateway's shape.
func (h *handlers) dataAvailability(r *request) (any, error) {
	return nil, rpcNotFound("no " + r.PathValue("layer") + " data-availability layer on this chain")
}

// accountAbstraction is /proxy/account-abstraction/status: no ERC-4337
// indexer runs here, so both entry-point versions say not enabled.
func (h *handlers) accountAbstraction(*request) (any, error) {
	return accountAbstractionStatus{}, nil
}

// jsonRPCURL is /api/v2/config/json-rpc-url: where wallets reach the chain.
func (h *handlers) jsonRPCURL(*request) (any, error) {
	var out jsonRPCURL
	if h.b.JSONRPCURL != "" {
		out.URL = &h.b.JSONRPCURL
	}
	return out, nil
}
