// Before a table: guest login, then create a table or join one by its id.
import { el } from "./pieces";

/** The login form; `go(name)` logs in as a guest. */
export function login(go: (name: string) => void): HTMLElement {
  const name = el("input", { id: "login-name", maxlength: "32", placeholder: "昵称", value: "玩家" });
  const button = el("button", { id: "login" }, "游客登录");
  button.addEventListener("click", () => go(name.value.trim()));
  return el("section", { class: "panel" }, el("h1", {}, "棋牌 qipai"), name, button);
}

export interface LobbyActions {
  create: (ruleset: string, optionsJson: string) => void;
  join: (tableId: string) => void;
  logout: () => void;
}

/** Create a table (a ruleset, its options as JSON) or join one by id. */
export function lobby(name: string, on: LobbyActions): HTMLElement {
  const ruleset = el("select", { id: "ruleset" },
    el("option", { value: "koudian" }, "吕梁扣点麻将"), el("option", { value: "daqi" }, "吕梁打七"),
    el("option", { value: "jj" }, "JJ 国标麻将"));
  const options = el("textarea", { id: "options", rows: "2", placeholder: '{"turn_timeout_ms": 20000}' });
  const create = el("button", { id: "create" }, "创建牌桌");
  create.addEventListener("click", () => on.create(ruleset.value, options.value.trim()));
  const id = el("input", { id: "join-id", placeholder: "table-…" });
  const join = el("button", { id: "join" }, "加入");
  join.addEventListener("click", () => on.join(id.value.trim()));
  const out = el("button", { class: "quiet" }, "退出登录");
  out.addEventListener("click", on.logout);
  return el("section", { class: "panel" },
    el("h1", {}, `你好, ${name}`),
    el("label", {}, "规则 ", ruleset),
    el("details", {}, el("summary", {}, "选项 (JSON)"), options),
    create,
    el("hr"),
    el("label", {}, "牌桌号 ", id), join,
    out);
}
