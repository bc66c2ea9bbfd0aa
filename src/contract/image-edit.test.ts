// The progress texts of spec section 8 for each state of an edit job.
import { describe, expect, it } from 'vitest';
import { editProgressText, type ImageEditResult } from './image-edit';

const result = (over: Partial<ImageEditResult>): ImageEditResult => ({
  successful_count: 3, total_count: 3, failed_count: 0, needs_frontend_registration: false, registration_data: [], virtual_folder_path: '/', failures: [], ...over,
});
const base = { processed_count: 0, failed_count: 0, error: null, result: null };

describe('editProgressText', () => {
  it('says what the job is doing', () => {
    expect(editProgressText({ ...base, status: 'queued' })).toBe('Starting image editing...');
    expect(editProgressText({ ...base, status: 'processing' })).toBe('Generating image edit...');
    expect(editProgressText({ ...base, status: 'registering', processed_count: 3, failed_count: 1 })).toBe('Registering 2 new images...');
    expect(editProgressText({ ...base, status: 'completed', result: result({}) })).toBe('Completed! 3 new images generated.');
    expect(editProgressText({ ...base, status: 'completed', result: result({ successful_count: 2, failed_count: 1, failures: [{ filename: 'a.png', error: 'x', stage: 'edit' }] }) })).toBe(
      'Completed! 2/3 images edited successfully. 1 failed.',
    );
    expect(editProgressText({ ...base, status: 'completed', result: result({ successful_count: 2, failed_count: 1, failures: [{ filename: 'a.png', error: 'x', stage: 'register' }] }) })).toBe(
      'Edit completed (2/3 successful) but registration failed. Please refresh page.',
    );
    expect(editProgressText({ ...base, status: 'failed', error: 'Boom' })).toBe('Error: Boom');
  });
});
