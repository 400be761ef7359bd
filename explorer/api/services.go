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
	off := func() obj {
		return obj{"enabled": false, "live": false, "past_db_logs_indexing_finished": false, "past_rpc_logs_indexing_finished": false}
	}
	return obj{"finished_past_indexing": false, "v06": off(), "v07": off()}, nil
}

// jsonRPCURL is /api/v2/config/json-rpc-url: where wallets reach the chain.
func (h *handlers) jsonRPCURL(*request) (any, error) {
	var url any
	if h.b.JSONRPCURL != "" {
		url = h.b.JSONRPCURL
	}
	return obj{"json_rpc_url": url}, nil
}
