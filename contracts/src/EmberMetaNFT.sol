// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// An OpenZeppelin ERC-721 whose token URIs are set at mint time (any
/// string: data: URIs, http URLs...), for the explorer's metadata tests.
/// burn lets the owner destroy a token.
contract EmberMetaNFT is ERC721 {
    uint256 public nextId = 1;
    mapping(uint256 => string) private uris;

    constructor() ERC721("Ember Meta NFT", "EMETA") {}

    function mint(address to, string calldata uri) external returns (uint256 id) {
        id = nextId++;
        uris[id] = uri;
        _mint(to, id);
    }

    function burn(uint256 id) external {
        _update(address(0), id, _msgSender());
    }

    function tokenURI(uint256 id) public view override returns (string memory) {
        _requireOwned(id);
        return uris[id];
    }
}
