// The model registry calls of the Models page (issue 34; docs/models.md), typed by src/contract/models.ts.
import { CreateModelResponse, DeleteModelResponse, ModelResponse, ModelsResponse, type ModelKind } from '../../../contract/models';
import { PrelabelJob, PrelabelStarted, type PrelabelRequestInput } from '../../../contract/prelabel';
import { request } from '../../api/client';

const enc = encodeURIComponent;

export const modelsApi = {
  list: (orgId: string) => request('GET', `/models?organization_id=${enc(orgId)}`, ModelsResponse),
  createOnnx: (orgId: string, name: string, file: File) => request('POST', '/models', CreateModelResponse, { organization_id: orgId, name, source: 'onnx', filename: file.name, size: file.size }),
  createHttp: (orgId: string, input: { name: string; url: string; kind: ModelKind; classes: string[]; headers?: Record<string, string> }) =>
    request('POST', '/models', CreateModelResponse, { organization_id: orgId, source: 'http', ...input }),
  activate: (id: string) => request('POST', `/models/${enc(id)}/activate`, ModelResponse),
  remove: (id: string) => request('DELETE', `/models/${enc(id)}`, DeleteModelResponse),
};

/** PUTs the file to its signed upload URL (no bearer token: the URL carries its own grant). */
export async function putModelFile(uploadUrl: string, contentType: string, file: File): Promise<void> {
  const res = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': contentType }, body: file });
  if (!res.ok) throw new Error(res.status === 413 ? 'The file is larger than the upload allows' : `The upload failed (${res.status})`);
}

/** Pre-label jobs (docs/models.md "Pre-label jobs"), typed by src/contract/prelabel.ts. */
export const prelabelApi = {
  start: (projectId: string, body: PrelabelRequestInput) => request('POST', `/projects/${enc(projectId)}/prelabel`, PrelabelStarted, body),
  get: (jobId: string) => request('GET', `/prelabel/${enc(jobId)}`, PrelabelJob),
  cancel: (jobId: string) => request('POST', `/prelabel/${enc(jobId)}/cancel`, PrelabelJob),
};
