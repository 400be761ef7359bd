// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

/// @title Shapes
/// @notice Read methods taking and returning arrays and structs (ABI tuples):
/// the explorer's contract forms encode and decode them in the browser.
contract Shapes {
    struct Point {
        int64 x;
        int64 y;
        string label;
    }

    /// @notice The point's label and the sum of its coordinates.
    function describe(Point calldata p) external pure returns (string memory label, int256 total) {
        return (p.label, int256(p.x) + int256(p.y));
    }

    /// @notice The points scaled by k, labels kept.
    function scale(Point[] calldata ps, int64 k) external pure returns (Point[] memory out) {
        out = new Point[](ps.length);
        for (uint256 i = 0; i < ps.length; i++) {
            out[i] = Point(ps[i].x * k, ps[i].y * k, ps[i].label);
        }
    }

    /// @notice The sums of each pair of a fixed-size array of pairs.
    function sums(uint256[2][] calldata pairs) external pure returns (uint256[] memory out) {
        out = new uint256[](pairs.length);
        for (uint256 i = 0; i < pairs.length; i++) {
            out[i] = pairs[i][0] + pairs[i][1];
        }
    }
}
