// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A plain OpenZeppelin ERC-20: the whole supply is minted to the deployer.
contract EmberToken is ERC20 {
    constructor(uint256 supply) ERC20("Ember Token", "EMB") {
        _mint(msg.sender, supply);
    }
}
