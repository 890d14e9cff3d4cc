// A models.yaml entry's own temperature and output limit, applied to each request sent to its model.
import type { ModelConfig } from '../config/models.js';
import type { GenerateRequest } from './types.js';

/**
 * The request as the model's entry wants it: the entry's `temperature` wins over the stage's (a user who set one
 * means it for every request); `max_output_tokens` caps the stage's limit, or is the limit when the stage sets none.
 */
export function applyModelSettings(request: GenerateRequest, config: Pick<ModelConfig, 'temperature' | 'max_output_tokens'>): GenerateRequest {
  const temperature = config.temperature ?? request.temperature;
  const limits = [request.maxOutputTokens, config.max_output_tokens].filter((n): n is number => n !== undefined);
  return {
    ...request,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(limits.length ? { maxOutputTokens: Math.min(...limits) } : {}),
  };
}
