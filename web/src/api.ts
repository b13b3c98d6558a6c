// The gRPC-Web side of the page: one transport through Envoy, typed clients generated from
// protos/, the player's token on every call, and a record of every message the page received.
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { Auth } from "../gen/qipai/v1/auth_pb";
import { Game } from "../gen/qipai/v1/game_pb";

export interface Session {
  token: string;
  playerId: string;
  name: string;
}

/** One message the page received, as protobuf JSON (tests compare it with the server's log). */
export interface Received {
  method: string;
  message: JsonValue;
}

declare global {
  interface Window {
    qipaiReceived: () => Received[][];
    qipaiStreams: number;
  }
}

// With ?record in the address, every message received is kept in this tab's sessionStorage as it
// arrives, one key each, grouped by page load: a test reads them all back, across reloads.
const recording = new URLSearchParams(location.search).has("record");
const RX = "qipai.rx";
const load = Number(sessionStorage.getItem(`${RX}.loads`) ?? 0);
let count = 0;
if (recording) sessionStorage.setItem(`${RX}.loads`, String(load + 1));

window.qipaiReceived = () => {
  const loads: Received[][] = [];
  for (let l = 0; l <= load; l++) {
    const got: Received[] = [];
    for (let n = 0; ; n++) {
      const raw = sessionStorage.getItem(`${RX}.${l}.${n}`);
      if (raw === null) break;
      got.push(JSON.parse(raw) as Received);
    }
    loads.push(got);
  }
  return loads;
};

window.qipaiStreams = 0; // streams opened by this page load (a dropped one is opened again)

function record(method: string, schema: DescMessage, message: unknown): void {
  if (!recording) return;
  const entry: Received = { method, message: toJson(schema, message as never) };
  sessionStorage.setItem(`${RX}.${load}.${count++}`, JSON.stringify(entry));
}

async function* tap<T>(stream: AsyncIterable<T>, method: string, schema: DescMessage): AsyncIterable<T> {
  for await (const m of stream) {
    record(method, schema, m);
    yield m;
  }
}

const recorder: Interceptor = (next) => async (req) => {
  const res = await next(req);
  const name = req.method.name;
  if (!res.stream) {
    record(name, req.method.output, res.message);
    return res;
  }
  window.qipaiStreams += 1;
  return { ...res, message: tap(res.message, name, req.method.output) };
};

const SESSION_KEY = "qipai.session";

export function loadSession(): Session | null {
  const raw = localStorage.getItem(SESSION_KEY);
  if (!raw) return null;
  const s = JSON.parse(raw) as Session;
  return s.token ? s : null;
}

export function saveSession(s: Session | null): void {
  if (s) localStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else localStorage.removeItem(SESSION_KEY);
}

// Same origin as the page (Envoy serves both) unless ?api=http://host:port says otherwise.
const baseUrl = new URLSearchParams(location.search).get("api") ?? location.origin;

let token = "";
export function useToken(t: string): void {
  token = t;
}

const bearer: Interceptor = (next) => async (req) => {
  if (token) req.header.set("authorization", `Bearer ${token}`);
  return next(req);
};

const transport = createGrpcWebTransport({ baseUrl, interceptors: [bearer, recorder] });

export const auth: Client<typeof Auth> = createClient(Auth, transport);
export const game: Client<typeof Game> = createClient(Game, transport);

export function newId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}
