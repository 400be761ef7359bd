import { render, paged } from "../lib.js";
import { tokenCols, listTable } from "./lists.js";
export default () => render("Tokens", paged("/tokens", listTable(tokenCols), "No tokens yet."));
