/** The few calls of node-zookeeper-client (which ships no types) that src/engine/leadership-zk.ts uses. */
declare module 'node-zookeeper-client' {
  import { EventEmitter } from 'node:events';

  export interface State {
    readonly name: string;
    readonly code: number;
  }
  export const State: {
    readonly DISCONNECTED: State;
    readonly SYNC_CONNECTED: State;
    readonly AUTH_FAILED: State;
    readonly CONNECTED_READ_ONLY: State;
    readonly SASL_AUTHENTICATED: State;
    readonly EXPIRED: State;
  };

  export const CreateMode: {
    readonly PERSISTENT: number;
    readonly PERSISTENT_SEQUENTIAL: number;
    readonly EPHEMERAL: number;
    readonly EPHEMERAL_SEQUENTIAL: number;
  };

  export interface ZkException extends Error {
    getCode(): number;
    getName(): string;
  }
  export const Exception: {
    readonly NO_NODE: number;
    readonly NODE_EXISTS: number;
    readonly BAD_VERSION: number;
    readonly CONNECTION_LOSS: number;
    readonly SESSION_EXPIRED: number;
  };

  export interface Stat {
    readonly version: number;
    readonly czxid: Buffer;
  }

  export interface ClientOptions {
    /** Requested session timeout, ms (the server clamps it to 2..20 ticks by default). */
    sessionTimeout?: number;
    /** Delay between attempts to connect to the next server of the ensemble, ms. */
    spinDelay?: number;
    /** Retries of a failed connection before giving up on a request. */
    retries?: number;
  }

  type Cb<T> = (error: ZkException | Error | null, result: T) => void;

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    getState(): State;
    getSessionTimeout(): number;
    create(path: string, data: Buffer, mode: number, callback: Cb<string>): void;
    remove(path: string, version: number, callback: (error: ZkException | Error | null) => void): void;
    exists(path: string, callback: Cb<Stat | null>): void;
    getData(path: string, callback: (error: ZkException | Error | null, data: Buffer | undefined, stat: Stat) => void): void;
    setData(path: string, data: Buffer, version: number, callback: Cb<Stat>): void;
    getChildren(path: string, callback: Cb<string[]>): void;
    mkdirp(path: string, callback: Cb<string>): void;
    on(event: 'state', listener: (state: State) => void): this;
  }

  export function createClient(connectionString: string, options?: ClientOptions): Client;
}
