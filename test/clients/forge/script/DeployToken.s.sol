// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {EmberToken} from "ember/EmberToken.sol";

/// The cheatcodes this script uses (forge-std's Vm, without the library).
interface Vm {
    function envUint(string calldata name) external view returns (uint256);
    function envAddress(string calldata name) external view returns (address);
    function startBroadcast(uint256 privateKey) external;
    function stopBroadcast() external;
}

/// forge script: deploys EmberToken(EMBER_SUPPLY) from EMBER_FORGE_KEY and
/// transfers EMBER_AMOUNT of it to EMBER_RECIPIENT: two broadcast transactions.
contract DeployToken {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (EmberToken token) {
        uint256 key = vm.envUint("EMBER_FORGE_KEY");
        uint256 supply = vm.envUint("EMBER_SUPPLY");
        address recipient = vm.envAddress("EMBER_RECIPIENT");
        uint256 amount = vm.envUint("EMBER_AMOUNT");
        vm.startBroadcast(key);
        token = new EmberToken(supply);
        require(token.transfer(recipient, amount), "transfer failed");
        vm.stopBroadcast();
    }
}
