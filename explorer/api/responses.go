package api

// The answers' fixed shapes, as Blockscout spells them. Fields are declared
// in the order of their JSON keys (alphabetical): the order the answers have
// always had, which clients that snapshot them rely on. A pointer is a
// member that is null when unknown; null and emptyList are members this
// explorer never fills.

// null is a member this explorer has no source for (ENS names, prices,
// tags): always JSON null.
type null struct{}

func (null) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// emptyList is a list this explorer never fills (tags, rewards, uncles):
// always [].
type emptyList struct{}

func (emptyList) MarshalJSON() ([]byte, error) { return []byte("[]"), nil }

// addressRef is Blockscout's embedded address object (AddressParam).
type addressRef struct {
	ENSDomainName      null             `json:"ens_domain_name"`
	Hash               string           `json:"hash"` // EIP-55
	ImplementationName *string          `json:"implementation_name"`
	Implementations    []implementation `json:"implementations"`
	IsContract         bool             `json:"is_contract"`
	IsVerified         bool             `json:"is_verified"`
	Metadata           null             `json:"metadata"`
	Name               *string          `json:"name"`
	PrivateTags        emptyList        `json:"private_tags"`
	ProxyType          *string          `json:"proxy_type"`
	PublicTags         emptyList        `json:"public_tags"`
	Reputation         string           `json:"reputation"`
	WatchlistNames     emptyList        `json:"watchlist_names"`
}

// implementation is one implementation behind a proxy.
type implementation struct {
	AddressHash string  `json:"address_hash"`
	Name        *string `json:"name"`
}

// addressItem is /addresses/{hash}: the address object without metadata,
// plus its balance and what its tabs hold.
type addressItem struct {
	BalanceBlock       uint64           `json:"block_number_balance_updated_at"`
	CoinBalance        string           `json:"coin_balance"`
	CreationStatus     string           `json:"creation_status,omitempty"` // contracts only
	CreationTx         *string          `json:"creation_transaction_hash"`
	Creator            *string          `json:"creator_address_hash"`
	ENSDomainName      null             `json:"ens_domain_name"`
	ExchangeRate       null             `json:"exchange_rate"`
	FirstSeen          uint64           `json:"first_seen_block_number"` // Ember's: the first block the address appeared in
	HasWithdrawals     bool             `json:"has_beacon_chain_withdrawals"`
	HasLogs            bool             `json:"has_logs"`
	HasTokenTransfers  bool             `json:"has_token_transfers"`
	HasTokens          bool             `json:"has_tokens"`
	HasValidated       bool             `json:"has_validated_blocks"`
	Hash               string           `json:"hash"`
	ImplementationName *string          `json:"implementation_name"`
	Implementations    []implementation `json:"implementations"`
	IsContract         bool             `json:"is_contract"`
	IsVerified         bool             `json:"is_verified"`
	LastSeen           uint64           `json:"last_seen_block_number"` // Ember's: the last block the address appeared in
	Name               *string          `json:"name"`
	PrivateTags        emptyList        `json:"private_tags"`
	ProxyType          *string          `json:"proxy_type"`
	PublicTags         emptyList        `json:"public_tags"`
	Reputation         string           `json:"reputation"`
	Token              *tokenInfo       `json:"token"`
	TxCount            *string          `json:"transactions_count,omitempty"` // in the top-holders list only
	WatchlistAddressID null             `json:"watchlist_address_id"`
	WatchlistNames     emptyList        `json:"watchlist_names"`
}

// blockItem is Blockscout's Block. InternalTxCount is only given for one
// block (/blocks/{id}).
type blockItem struct {
	BaseFee             *string     `json:"base_fee_per_gas"`
	BurntFees           string      `json:"burnt_fees"`
	BurntFeesPercentage float64     `json:"burnt_fees_percentage"`
	CometBFTHash        string      `json:"cometbft_hash,omitempty"` // Ember's: the CometBFT block hash, uppercase hex as CometBFT spells it; absent when unknown
	Difficulty          string      `json:"difficulty"`
	ExtraData           string      `json:"extra_data"`
	GasLimit            string      `json:"gas_limit"`
	GasTargetPercentage float64     `json:"gas_target_percentage"`
	GasUsed             string      `json:"gas_used"`
	GasUsedPercentage   float64     `json:"gas_used_percentage"`
	Hash                string      `json:"hash"`
	Height              uint64      `json:"height"`
	InternalTxCount     *uint64     `json:"internal_transactions_count,omitempty"`
	IsPendingUpdate     bool        `json:"is_pending_update"`
	Miner               *addressRef `json:"miner"`
	Nonce               string      `json:"nonce"`
	ParentHash          string      `json:"parent_hash"`
	PriorityFee         string      `json:"priority_fee"`
	Rewards             emptyList   `json:"rewards"`
	Size                uint64      `json:"size"`
	StateRoot           string      `json:"state_root"`
	Timestamp           string      `json:"timestamp"`
	TotalDifficulty     null        `json:"total_difficulty"` // a BFT chain has no fork choice by difficulty
	TxFees              string      `json:"transaction_fees"`
	TxCount             int         `json:"transactions_count"`
	Type                string      `json:"type"`
	UnclesHashes        emptyList   `json:"uncles_hashes"`
	WithdrawalsCount    int         `json:"withdrawals_count"`
}

// txItem is Blockscout's Transaction, included or pending (whose block,
// outcome and actual fee are null).
type txItem struct {
	Actions              emptyList       `json:"actions"`
	BaseFee              *string         `json:"base_fee_per_gas"`
	BlockHash            *string         `json:"block_hash"`
	BlockNumber          *uint64         `json:"block_number"`
	ConfirmationDuration emptyList       `json:"confirmation_duration"`
	Confirmations        uint64          `json:"confirmations"`
	CreatedContract      *addressRef     `json:"created_contract"`
	DecodedInput         any             `json:"decoded_input"` // decode.Decoded's JSON, null when not decoded
	ExchangeRate         null            `json:"exchange_rate"`
	Fee                  fee             `json:"fee"`
	From                 *addressRef     `json:"from"`
	GasLimit             string          `json:"gas_limit"`
	GasPrice             string          `json:"gas_price"`
	GasUsed              *string         `json:"gas_used"`
	HasInternalErrors    *bool           `json:"has_error_in_internal_transactions"` // set on /transactions/{hash}
	Hash                 string          `json:"hash"`
	IsPendingUpdate      bool            `json:"is_pending_update"`
	MaxFee               *string         `json:"max_fee_per_gas"`
	MaxTip               *string         `json:"max_priority_fee_per_gas"`
	Method               *string         `json:"method"`           // function name when known, else the 0x selector
	Native               *nativeInfo     `json:"native,omitempty"` // native (Cosmos) transactions only (native.go)
	Nonce                uint64          `json:"nonce"`
	Position             *int            `json:"position"`
	PriorityFee          *string         `json:"priority_fee"`
	RawInput             string          `json:"raw_input"`
	Result               string          `json:"result"`
	RevertReason         any             `json:"revert_reason"` // revert.go: DecodedInput, {raw}, or null
	Status               *string         `json:"status"`
	Timestamp            *string         `json:"timestamp"`
	To                   *addressRef     `json:"to"`
	TokenTransfers       []*transferItem `json:"token_transfers"`
	TokenTransfersMore   bool            `json:"token_transfers_overflow"`
	BurntFee             *string         `json:"transaction_burnt_fee"`
	TxTag                null            `json:"transaction_tag"`
	TxTypes              []string        `json:"transaction_types"`
	Type                 *uint8          `json:"type"` // null for a native transaction
	Value                string          `json:"value"`
}

// fee is a transaction's fee: the actual one, or the maximum while pending.
type fee struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// logItem is Blockscout's Log; address and smart_contract are the emitter.
type logItem struct {
	Address       *addressRef `json:"address"`
	BlockHash     string      `json:"block_hash"`
	BlockNumber   uint64      `json:"block_number"`
	Data          string      `json:"data"`
	Decoded       any         `json:"decoded"` // decode.Decoded's JSON, null when not decoded
	Index         uint        `json:"index"`
	SmartContract *addressRef `json:"smart_contract"`
	Topics        []string    `json:"topics"`
	TxHash        string      `json:"transaction_hash"`
}

// internalTxItem is Blockscout's InternalTransaction.
type internalTxItem struct {
	BlockIndex      int         `json:"block_index"`
	BlockNumber     uint64      `json:"block_number"`
	CreatedContract *addressRef `json:"created_contract"`
	Error           *string     `json:"error"`
	From            *addressRef `json:"from"`
	GasLimit        string      `json:"gas_limit"`
	Index           int         `json:"index"`
	Success         bool        `json:"success"`
	Timestamp       string      `json:"timestamp"`
	To              *addressRef `json:"to"`
	TxHash          string      `json:"transaction_hash"`
	TxIndex         int         `json:"transaction_index"`
	Type            string      `json:"type"`
	Value           string      `json:"value"`
}

// balanceChange is one item of /coin-balance-history.
type balanceChange struct {
	BlockNumber    uint64  `json:"block_number"`
	BlockTimestamp string  `json:"block_timestamp"`
	Delta          string  `json:"delta"`
	TxHash         *string `json:"transaction_hash"`
	Value          string  `json:"value"`
}

// tokenInfo is Blockscout's TokenInfo. "address" and "holders" repeat
// address_hash and holders_count under the names the YAML requires (older
// Blockscout spelled them so).
type tokenInfo struct {
	Address              string  `json:"address"`
	AddressHash          string  `json:"address_hash"`
	CirculatingMarketCap null    `json:"circulating_market_cap"`
	Decimals             *string `json:"decimals"`
	ExchangeRate         null    `json:"exchange_rate"`
	Holders              string  `json:"holders"`
	HoldersCount         string  `json:"holders_count"`
	IconURL              null    `json:"icon_url"`
	Name                 *string `json:"name"`
	Reputation           string  `json:"reputation"`
	Symbol               *string `json:"symbol"`
	TotalSupply          *string `json:"total_supply"`
	Type                 string  `json:"type"`
	Volume24h            null    `json:"volume_24h"`
}

// addressCounters is /addresses/{hash}/counters.
type addressCounters struct {
	GasUsage       string `json:"gas_usage_count"`
	TokenTransfers string `json:"token_transfers_count"`
	Txs            string `json:"transactions_count"`
	Validations    string `json:"validations_count"`
}

// addressTabsCounters is /addresses/{hash}/tabs-counters; logs are not
// counted (null, as Blockscout answers for a tab it has no data for).
type addressTabsCounters struct {
	InternalTxs    uint64 `json:"internal_transactions_count"`
	Logs           null   `json:"logs_count"`
	TokenBalances  int    `json:"token_balances_count"`
	TokenTransfers uint64 `json:"token_transfers_count"`
	Txs            uint64 `json:"transactions_count"`
	Validations    uint64 `json:"validations_count"`
	Withdrawals    int    `json:"withdrawals_count"`
}

// balanceDaysJSON is /addresses/{hash}/coin-balance-history-by-day.
type balanceDaysJSON struct {
	Days  int          `json:"days"`
	Items []balanceDay `json:"items"`
}

type balanceDay struct {
	Date  string `json:"date"`
	Value string `json:"value"`
}

// topAddressesJSON is /addresses: the richest addresses with the total
// supply. No price source: exchange_rate null.
type topAddressesJSON struct {
	ExchangeRate null `json:"exchange_rate"`
	page[*addressItem]
	TotalSupply string `json:"total_supply"`
}

// transferItem is Blockscout's TokenTransfer. Total is erc20Total,
// erc721Total or erc1155Total by the token's standard.
type transferItem struct {
	BlockHash   string      `json:"block_hash"`
	BlockNumber uint64      `json:"block_number"`
	From        *addressRef `json:"from"`
	LogIndex    uint        `json:"log_index"`
	Method      null        `json:"method"`
	Timestamp   string      `json:"timestamp"`
	To          *addressRef `json:"to"`
	Token       *tokenInfo  `json:"token"`
	TokenType   string      `json:"token_type"`
	Total       any         `json:"total"`
	TxHash      string      `json:"transaction_hash"`
	Type        string      `json:"type"` // token_transfer, token_minting or token_burning
}

type erc20Total struct {
	Decimals *string `json:"decimals"`
	Value    string  `json:"value"`
}

type erc721Total struct {
	TokenID       string        `json:"token_id"`
	TokenInstance *instanceItem `json:"token_instance"`
}

type erc1155Total struct {
	Decimals      *string       `json:"decimals"`
	TokenID       string        `json:"token_id"`
	TokenInstance *instanceItem `json:"token_instance"`
	Value         string        `json:"value"`
}

// holderItem is one holder of a token (of one id for ERC-1155).
type holderItem struct {
	Address *addressRef `json:"address"`
	Token   *tokenInfo  `json:"token"`
	TokenID *string     `json:"token_id"`
	Value   string      `json:"value"`
}

// balanceItem is one of an address's token balances.
type balanceItem struct {
	Token         *tokenInfo    `json:"token"`
	TokenID       *string       `json:"token_id"`
	TokenInstance *instanceItem `json:"token_instance"`
	Value         string        `json:"value"`
}

// instanceItem is Blockscout's NFT instance; image_url, animation_url and
// external_app_url come from the metadata's image (or image_url),
// animation_url and external_url. Value is the amount held, in an
// address's NFT lists only.
type instanceItem struct {
	AnimationURL      *string     `json:"animation_url"`
	ExternalAppURL    *string     `json:"external_app_url"`
	HolderAddressHash *string     `json:"holder_address_hash"`
	ID                string      `json:"id"`
	ImageURL          *string     `json:"image_url"`
	IsUnique          bool        `json:"is_unique"`
	MediaType         null        `json:"media_type"`
	MediaURL          *string     `json:"media_url"`
	Metadata          any         `json:"metadata"` // the JSON the token URI served, as it is
	Owner             *addressRef `json:"owner"`
	Thumbnails        null        `json:"thumbnails"`
	Token             *tokenInfo  `json:"token"`
	TokenType         string      `json:"token_type"`
	Value             *string     `json:"value,omitempty"`
}

// collectionItem is one NFT contract an address holds some of.
type collectionItem struct {
	Amount         string          `json:"amount"`
	Token          *tokenInfo      `json:"token"`
	TokenInstances []*instanceItem `json:"token_instances"`
}

// transfersCount is /tokens/{hash}/instances/{id}/transfers-count.
type transfersCount struct {
	Count uint64 `json:"transfers_count"`
}

// tokenHit is a token in /search's results.
type tokenHit struct {
	Address          string  `json:"address"`
	AddressHash      string  `json:"address_hash"`
	AddressURL       string  `json:"address_url"`
	Certified        bool    `json:"certified"`
	ExchangeRate     null    `json:"exchange_rate"`
	HoldersCount     string  `json:"holders_count"`
	IconURL          null    `json:"icon_url"`
	ContractVerified bool    `json:"is_smart_contract_verified"`
	VerifiedViaAdmin bool    `json:"is_verified_via_admin_panel"`
	Name             *string `json:"name"`
	Reputation       string  `json:"reputation"`
	Symbol           *string `json:"symbol"`
	TokenType        string  `json:"token_type"`
	TokenURL         string  `json:"token_url"`
	TotalSupply      *string `json:"total_supply"`
	Type             string  `json:"type"`
}

// verifiedContractItem is one item of /smart-contracts.
type verifiedContractItem struct {
	Address             *addressRef `json:"address"`
	Certified           bool        `json:"certified"`
	CoinBalance         string      `json:"coin_balance"`
	CompilerVersion     string      `json:"compiler_version"`
	HasConstructorArgs  bool        `json:"has_constructor_args"`
	Language            string      `json:"language"`
	LicenseType         string      `json:"license_type"`
	OptimizationEnabled bool        `json:"optimization_enabled"`
	Reputation          string      `json:"reputation"`
	TxCount             uint64      `json:"transactions_count"`
	VerifiedAt          string      `json:"verified_at"`
}

// contractCounters is /smart-contracts/counters.
type contractCounters struct {
	NewContracts string `json:"new_smart_contracts_24h"`
	NewVerified  string `json:"new_verified_smart_contracts_24h"`
	Contracts    string `json:"smart_contracts"`
	Verified     string `json:"verified_smart_contracts"`
}

// blockHit, txHit and addressHit are /search's results (tokenHit too).
type blockHit struct {
	BlockHash   string `json:"block_hash"`
	BlockNumber uint64 `json:"block_number"`
	BlockType   string `json:"block_type"`
	Timestamp   string `json:"timestamp"`
	Type        string `json:"type"`
	URL         string `json:"url"`
}

type txHit struct {
	Timestamp string `json:"timestamp"`
	TxHash    string `json:"transaction_hash"`
	Type      string `json:"type"`
	URL       string `json:"url"`
}

type addressHit struct {
	Address          string  `json:"address"`
	AddressHash      string  `json:"address_hash"`
	Certified        bool    `json:"certified"`
	ENSInfo          null    `json:"ens_info"`
	ContractVerified bool    `json:"is_smart_contract_verified"`
	Name             *string `json:"name"` // a verified contract's
	Reputation       string  `json:"reputation"`
	Type             string  `json:"type"` // address or contract
	URL              string  `json:"url"`
}

// redirect is /search/check-redirect: where the front end goes for q.
type redirect struct {
	Parameter *string `json:"parameter"`
	Redirect  bool    `json:"redirect"`
	Type      *string `json:"type"`
}

// statsJSON is /stats. No price source: prices, market cap and TVL null.
type statsJSON struct {
	AverageBlockTime   float64        `json:"average_block_time"`
	CoinImage          null           `json:"coin_image"`
	CoinPrice          null           `json:"coin_price"`
	CoinPriceChange    null           `json:"coin_price_change_percentage"`
	GasPriceUpdatedAt  *string        `json:"gas_price_updated_at"`
	GasPrices          *gasPricesJSON `json:"gas_prices"`           // null before any block
	GasPricesUpdateIn  int            `json:"gas_prices_update_in"` // 0: computed on each request
	GasUsedToday       string         `json:"gas_used_today"`
	MarketCap          null           `json:"market_cap"`
	NetworkUtilization float64        `json:"network_utilization_percentage"`
	StaticGasPrice     null           `json:"static_gas_price"`
	TotalAddresses     string         `json:"total_addresses"`
	TotalBlocks        string         `json:"total_blocks"`
	TotalGasUsed       string         `json:"total_gas_used"`
	TotalTxs           string         `json:"total_transactions"`
	TxsToday           string         `json:"transactions_today"`
	TVL                null           `json:"tvl"`
}

// gasPricesJSON is the gas oracle's answer, in gwei.
type gasPricesJSON struct {
	Average gasPrice `json:"average"`
	Fast    gasPrice `json:"fast"`
	Slow    gasPrice `json:"slow"`
}

type gasPrice struct {
	BaseFee     float64 `json:"base_fee"`
	FiatPrice   null    `json:"fiat_price"`
	Price       float64 `json:"price"`
	PriorityFee float64 `json:"priority_fee"`
	Time        float64 `json:"time"` // inclusion estimate, ms
}

// indexingStatus is /main-page/indexing-status. Internal transactions are
// indexed with their blocks, so their ratio is null.
type indexingStatus struct {
	Finished       bool   `json:"finished_indexing"`
	FinishedBlocks bool   `json:"finished_indexing_blocks"`
	BlocksRatio    string `json:"indexed_blocks_ratio"`
	InternalRatio  null   `json:"indexed_internal_transactions_ratio"`
}

// serviceHealth is gRPC health checking's v1HealthCheckResponse.
type serviceHealth struct {
	Status string `json:"status"`
}

// healthJSON is /api/health: the gRPC status and Blockscout's own body.
type healthJSON struct {
	Healthy  bool `json:"healthy"`
	Metadata struct {
		LatestBlock struct {
			DB struct {
				Number    *string `json:"number"`
				Timestamp *string `json:"timestamp"`
			} `json:"db"`
			Node struct {
				Number *string `json:"number"`
			} `json:"node"`
		} `json:"latest_block"`
	} `json:"metadata"`
	Status string `json:"status"`
}

// txChartJSON is /stats/charts/transactions.
type txChartJSON struct {
	ChartData []txChartDay `json:"chart_data"`
}

type txChartDay struct {
	Date    string `json:"date"`
	TxCount uint64 `json:"transactions_count"`
}

// marketChart is /stats/charts/market: no price series.
type marketChart struct {
	AvailableSupply string    `json:"available_supply"`
	ChartData       emptyList `json:"chart_data"`
}

// accountAbstractionStatus is /proxy/account-abstraction/status: no
// ERC-4337 indexer runs here.
type accountAbstractionStatus struct {
	FinishedPastIndexing bool            `json:"finished_past_indexing"`
	V06                  entryPointState `json:"v06"`
	V07                  entryPointState `json:"v07"`
}

type entryPointState struct {
	Enabled                 bool `json:"enabled"`
	Live                    bool `json:"live"`
	PastDBLogsIndexingDone  bool `json:"past_db_logs_indexing_finished"`
	PastRPCLogsIndexingDone bool `json:"past_rpc_logs_indexing_finished"`
}

// jsonRPCURL is /config/json-rpc-url.
type jsonRPCURL struct {
	URL *string `json:"json_rpc_url"`
}

// tokenCounters is /tokens/{hash}/counters.
type tokenCounters struct {
	Holders   string `json:"token_holders_count"`
	Transfers string `json:"transfers_count"`
}

// verified is a successful verification's answer.
type verified struct {
	AddressHash string `json:"address_hash"`
	Message     string `json:"message"`
	Name        string `json:"name"`
}

// contractJSON is /smart-contracts/{hash}: every field Blockscout's backend
// declares, null where unknown. An unverified contract has its code and
// proxy fields, and a verified twin's sources and ABI when one exists.
type contractJSON struct {
	ABI                        any              `json:"abi"`
	Sources                    []sourceFile     `json:"additional_sources"`
	CanBeVisualized            bool             `json:"can_be_visualized_via_sol2uml"`
	Certified                  bool             `json:"certified"`
	CoinBalance                string           `json:"coin_balance"`
	CompilerSettings           any              `json:"compiler_settings"`
	CompilerVersion            *string          `json:"compiler_version"`
	ConflictingImplementations emptyList        `json:"conflicting_implementations"`
	ConstructorArgs            *string          `json:"constructor_args"`
	CreationBytecode           *string          `json:"creation_bytecode"`
	CreationStatus             string           `json:"creation_status"`
	DecodedConstructorArgs     any              `json:"decoded_constructor_args"`
	DeployedBytecode           *string          `json:"deployed_bytecode"`
	EVMVersion                 *string          `json:"evm_version"`
	ExternalLibraries          emptyList        `json:"external_libraries"`
	FilePath                   *string          `json:"file_path"`
	HasConstructorArgs         bool             `json:"has_constructor_args"`
	Implementations            []implementation `json:"implementations"`
	IsBlueprint                bool             `json:"is_blueprint"`
	IsChangedBytecode          bool             `json:"is_changed_bytecode"`
	IsFullyVerified            bool             `json:"is_fully_verified"`
	IsPartiallyVerified        bool             `json:"is_partially_verified"`
	IsVerified                 bool             `json:"is_verified"`
	ViaEthBytecodeDB           bool             `json:"is_verified_via_eth_bytecode_db"`
	ViaSourcify                bool             `json:"is_verified_via_sourcify"`
	ViaVerifierAlliance        bool             `json:"is_verified_via_verifier_alliance"`
	Language                   *string          `json:"language"`
	LicenseType                *string          `json:"license_type"`
	MarketCap                  null             `json:"market_cap"`
	Name                       *string          `json:"name"`
	OptimizationEnabled        *bool            `json:"optimization_enabled"`
	OptimizationRuns           *int64           `json:"optimization_runs"`  // the backend's spelling
	OptimizationsRuns          *int64           `json:"optimizations_runs"` // the YAML's spelling
	ProxyType                  *string          `json:"proxy_type"`
	Reputation                 string           `json:"reputation"`
	SourceCode                 *string          `json:"source_code"`
	SourcifyRepoURL            null             `json:"sourcify_repo_url"`
	TxCount                    uint64           `json:"transactions_count"`
	VerifiedAt                 *string          `json:"verified_at"`
	VerifiedTwin               *string          `json:"verified_twin_address_hash"`
}

// sourceFile is one more source of a verified contract.
type sourceFile struct {
	Path    string `json:"file_path"`
	Content string `json:"source_code"`
}

// rawTraceItem is one frame of /transactions/{hash}/raw-trace, Parity's
// trace format: Action is callAction, createAction or selfdestructAction;
// Result (absent when the frame failed, and for a selfdestruct) callResult
// or createResult.
type rawTraceItem struct {
	Action       any    `json:"action"`
	Error        string `json:"error,omitempty"`
	Result       any    `json:"result,omitempty"`
	Subtraces    int    `json:"subtraces"`
	TraceAddress []int  `json:"traceAddress"`
	Type         string `json:"type"`
}

type callAction struct {
	CallType string `json:"callType"`
	From     string `json:"from"`
	Gas      string `json:"gas"`
	Input    string `json:"input"`
	To       string `json:"to"`
	Value    string `json:"value"`
}

type callResult struct {
	GasUsed string `json:"gasUsed"`
	Output  string `json:"output"`
}

type createAction struct {
	CreationMethod string `json:"creationMethod"`
	From           string `json:"from"`
	Gas            string `json:"gas"`
	Init           string `json:"init"`
	Value          string `json:"value"`
}

type createResult struct {
	Address string `json:"address"`
	Code    string `json:"code"`
	GasUsed string `json:"gasUsed"`
}

type selfdestructAction struct {
	Address       string `json:"address"`
	Balance       string `json:"balance"`
	RefundAddress string `json:"refundAddress"`
}

// stateChange is one item of /transactions/{hash}/state-changes. Change
// is a decimal delta, or for an ERC-721 the list of nftChange (null when
// none).
type stateChange struct {
	Address       *addressRef  `json:"address"`
	BalanceAfter  string       `json:"balance_after"`
	BalanceBefore string       `json:"balance_before"`
	Change        any          `json:"change"`
	IsMiner       bool         `json:"is_miner"`
	Token         *tracedToken `json:"token"`
	TokenID       *string      `json:"token_id"` // ERC-1155 only
	Type          string       `json:"type"`     // coin or token
}

type nftChange struct {
	Direction string   `json:"direction"` // from or to
	Total     nftTotal `json:"total"`
}

type nftTotal struct {
	TokenID string `json:"token_id"`
}

// tracedToken is a minimal TokenInfo read through the token's own calls
// after the transaction; name and symbol are null when unreadable.
type tracedToken struct {
	Address              string  `json:"address"`
	AddressHash          string  `json:"address_hash"`
	CirculatingMarketCap null    `json:"circulating_market_cap"`
	Decimals             *string `json:"decimals"`
	ExchangeRate         null    `json:"exchange_rate"`
	Holders              null    `json:"holders"`
	HoldersCount         null    `json:"holders_count"`
	IconURL              null    `json:"icon_url"`
	Name                 *string `json:"name"`
	Reputation           string  `json:"reputation"`
	Symbol               *string `json:"symbol"`
	TotalSupply          *string `json:"total_supply"`
	Type                 string  `json:"type"`
}

// summaryJSON is /transactions/{hash}/summary: readable sentences, each a
// template whose {placeholders} its variables fill.
type summaryJSON struct {
	Data struct {
		Summaries []summaryItem `json:"summaries"`
	} `json:"data"`
	Success bool `json:"success"`
}

type summaryItem struct {
	Template string      `json:"summary_template"`
	Vars     summaryVars `json:"summary_template_variables"`
}

// summaryVars are a template's variables by placeholder name.
type summaryVars map[string]summaryVar

// summaryVar is one variable: Value is a string, an addressRef or a
// summaryToken, by Type.
type summaryVar struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// summaryToken is a summary's token: TokenInfo as far as calls tell.
type summaryToken struct {
	AddressHash          string  `json:"address_hash"`
	CirculatingMarketCap null    `json:"circulating_market_cap"`
	Decimals             *string `json:"decimals"`
	ExchangeRate         null    `json:"exchange_rate"`
	HoldersCount         null    `json:"holders_count"`
	IconURL              null    `json:"icon_url"`
	Name                 *string `json:"name"`
	Symbol               *string `json:"symbol"`
	TotalSupply          null    `json:"total_supply"`
	Type                 string  `json:"type"`
	VolumeH24            null    `json:"volume_24h"`
}
