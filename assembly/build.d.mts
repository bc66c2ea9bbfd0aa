export declare const wasmPath: string;
export declare function buildKernels(options?: { force?: boolean; debug?: boolean; quiet?: boolean }): Promise<string>;
