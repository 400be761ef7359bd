import { render, paged } from "../lib.js";
import { blockCols, listTable } from "./lists.js";
export default () => render("Blocks", paged("/blocks", listTable(blockCols), "No blocks yet."));
