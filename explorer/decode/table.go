package decode

// builtinFunctions are the calls decoded for contracts without a verified
// ABI, by selector, in Solidity's spelling with parameter names. Where two
// standards share a selector (ERC-20 and ERC-721 transferFrom and approve)
// one entry names the parameters for both.
var builtinFunctions = []string{
	// ERC-20
	"transfer(address to, uint256 amount)",
	"transferFrom(address from, address to, uint256 amount)",
	"approve(address spender, uint256 amount)",
	"increaseAllowance(address spender, uint256 addedValue)",
	"decreaseAllowance(address spender, uint256 subtractedValue)",
	"balanceOf(address account)",
	"allowance(address owner, address spender)",
	"totalSupply()",
	"name()",
	"symbol()",
	"decimals()",
	"permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
	"mint(address to, uint256 amount)",
	"burn(uint256 amount)",
	"burnFrom(address account, uint256 amount)",
	// ERC-721
	"safeTransferFrom(address from, address to, uint256 tokenId)",
	"safeTransferFrom(address from, address to, uint256 tokenId, bytes data)",
	"setApprovalForAll(address operator, bool approved)",
	"isApprovedForAll(address owner, address operator)",
	"ownerOf(uint256 tokenId)",
	"getApproved(uint256 tokenId)",
	"tokenURI(uint256 tokenId)",
	"safeMint(address to, uint256 tokenId)",
	// ERC-1155
	"safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes data)",
	"safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)",
	"balanceOfBatch(address[] accounts, uint256[] ids)",
	"uri(uint256 id)",
	// Ownable, AccessControl, Pausable
	"owner()",
	"transferOwnership(address newOwner)",
	"renounceOwnership()",
	"acceptOwnership()",
	"grantRole(bytes32 role, address account)",
	"revokeRole(bytes32 role, address account)",
	"renounceRole(bytes32 role, address callerConfirmation)",
	"hasRole(bytes32 role, address account)",
	"pause()",
	"unpause()",
	// Proxies (EIP-1967, UUPS, beacons)
	"upgradeTo(address newImplementation)",
	"upgradeToAndCall(address newImplementation, bytes data)",
	"implementation()",
	// Multicall
	"multicall(bytes[] data)",
	"multicall(uint256 deadline, bytes[] data)",
	"aggregate((address target, bytes callData)[] calls)",
	"tryAggregate(bool requireSuccess, (address target, bytes callData)[] calls)",
	"aggregate3((address target, bool allowFailure, bytes callData)[] calls)",
	"aggregate3Value((address target, bool allowFailure, uint256 value, bytes callData)[] calls)",
	// WETH
	"deposit()",
	"withdraw(uint256 wad)",
}

// builtinEvents are the events decoded for contracts without a verified
// ABI, by topic 0 and number of topics (ERC-20 and ERC-721 Transfer and
// Approval share topic 0 and differ in what is indexed).
var builtinEvents = []string{
	"Transfer(address indexed from, address indexed to, uint256 value)",
	"Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
	"Approval(address indexed owner, address indexed spender, uint256 value)",
	"Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
	"ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
	"TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
	"TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
	"URI(string value, uint256 indexed id)",
	"OwnershipTransferred(address indexed previousOwner, address indexed newOwner)",
	"RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)",
	"RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)",
	"Paused(address account)",
	"Unpaused(address account)",
	"Upgraded(address indexed implementation)",
	"BeaconUpgraded(address indexed beacon)",
	"AdminChanged(address previousAdmin, address newAdmin)",
	"Initialized(uint64 version)",
	"Deposit(address indexed dst, uint256 wad)",
	"Withdrawal(address indexed src, uint256 wad)",
}
