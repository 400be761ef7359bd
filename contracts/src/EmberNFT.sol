// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// A plain OpenZeppelin ERC-721 anyone can mint from, with sequential ids from 1.
contract EmberNFT is ERC721 {
    uint256 public nextId = 1;

    constructor() ERC721("Ember NFT", "EMBN") {}

    function mint(address to) external returns (uint256 id) {
        id = nextId++;
        _safeMint(to, id);
    }
}
