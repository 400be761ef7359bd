// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A time-locked ether vault, as in Hardhat's sample project: events, a
/// require message and custom errors for hardhat-chai-matchers to check.
contract Vault {
    error NotOwner(address caller);
    error TooEarly(uint256 time, uint256 unlockTime);

    event Deposited(address indexed from, uint256 amount);
    event Withdrawn(address indexed to, uint256 amount);

    address payable public immutable owner;
    uint256 public immutable unlockTime;

    constructor(uint256 unlockTime_) payable {
        owner = payable(msg.sender);
        unlockTime = unlockTime_;
    }

    function deposit() external payable {
        require(msg.value > 0, "Vault: nothing deposited");
        emit Deposited(msg.sender, msg.value);
    }

    function withdraw() external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        if (block.timestamp < unlockTime) revert TooEarly(block.timestamp, unlockTime);
        uint256 amount = address(this).balance;
        emit Withdrawn(owner, amount);
        owner.transfer(amount);
    }
}
