// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// The ERC-20 a SwapPool pays out: the whole supply is minted to the deployer.
contract PoolToken is ERC20 {
    constructor(uint256 supply) ERC20("Pool Token", "POOL") {
        _mint(msg.sender, supply);
    }
}

/// A swap-like contract for the explorer's state-changes tests: it takes
/// ETH and pays out its ERC-20 at a fixed rate, keeping a fee on both
/// sides: 1% of the ETH is forwarded to the fee recipient (an internal call
/// with value) and 0.3% of the tokens go to it too.
contract SwapPool {
    IERC20 public immutable token;
    address payable public immutable feeTo;
    uint256 public constant RATE = 1000; // token units per wei

    event Swapped(address indexed to, uint256 paid, uint256 received);

    constructor(IERC20 token_, address payable feeTo_) {
        token = token_;
        feeTo = feeTo_;
    }

    function swap(address to) external payable returns (uint256 out) {
        uint256 ethFee = msg.value / 100;
        (bool ok,) = feeTo.call{value: ethFee}("");
        require(ok, "fee transfer failed");
        uint256 gross = msg.value * RATE;
        uint256 tokenFee = (gross * 3) / 1000;
        out = gross - tokenFee;
        require(token.transfer(to, out), "payout failed");
        require(token.transfer(feeTo, tokenFee), "fee payout failed");
        emit Swapped(to, msg.value, out);
    }
}
