// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1967Proxy} from "@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol";
import {BeaconProxy} from "@openzeppelin/contracts/proxy/beacon/BeaconProxy.sol";
import {UpgradeableBeacon} from "@openzeppelin/contracts/proxy/beacon/UpgradeableBeacon.sol";

/// OpenZeppelin's EIP-1967 proxies, for the explorer's proxy resolution:
/// the implementation in the EIP-1967 slot, or behind a beacon.
contract EmberProxy is ERC1967Proxy {
    constructor(address implementation) ERC1967Proxy(implementation, "") {}

    /// No initializer call: the tests read the implementation's constants.
    function _unsafeAllowUninitialized() internal pure override returns (bool) {
        return true;
    }
}

contract EmberBeacon is UpgradeableBeacon {
    constructor(address implementation) UpgradeableBeacon(implementation, msg.sender) {}
}

contract EmberBeaconProxy is BeaconProxy {
    constructor(address beacon) BeaconProxy(beacon, "") {}
}
