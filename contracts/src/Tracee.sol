// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// A contract created by Tracee: settable, can revert and self-destruct.
contract Child {
    uint256 public value;

    constructor(uint256 v) payable {
        value = v;
    }

    // payable: Tracee delegate-calls it from a call that carries value.
    function set(uint256 v) external payable {
        value = v;
    }

    function fail() external pure {
        revert("child says no");
    }

    function die(address payable to) external {
        selfdestruct(to);
    }
}

/// Tracee exercises every kind of frame a tracer must show, in one call:
/// CREATE with value, CREATE2, CALL, STATICCALL, DELEGATECALL, a reverting
/// sub-call that is caught, and SELFDESTRUCT of a contract created in the
/// same transaction (so deleted, EIP-6780).
contract Tracee {
    uint256 public counter;

    event Done(uint256 indexed n, address child);

    function run(uint256 n) external payable returns (uint256) {
        Child a = new Child{value: 1}(n);
        Child b = new Child{salt: bytes32(n)}(n + 1);
        a.set(n + 2);
        uint256 v = b.value();
        // Child.set through DELEGATECALL writes our slot 0: counter = n + 3.
        (bool ok,) = address(b).delegatecall(abi.encodeCall(Child.set, (n + 3)));
        require(ok, "delegatecall failed");
        try a.fail() {} catch {}
        a.die(payable(msg.sender));
        counter += v;
        emit Done(n, address(b));
        return counter;
    }
}
