import { PROFILE_CHANGE_ERRORS } from './workspace.profile.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { errorResponses } from '../../http/error-examples.js';
import { BEARER_SECURITY } from '../../http/openapi-operation.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import type { WorkspaceService } from './workspace.service.js';
import { MERCHANT_GUARD_ERRORS } from '../../http/workspace-route.js';
import { presentWorkspace } from './workspace.present.js';
import { UpdateWorkspaceBody, WorkspaceView } from './workspace.schemas.js';
import { workspaceExamples } from './workspace.examples.js';

/** What these routes call. */
export interface WorkspaceRouteDeps {
  readonly workspaces: WorkspaceService;
}

const UPDATE_DOCS: OperationDocs = {
  errors: [...PROFILE_CHANGE_ERRORS, ...MERCHANT_GUARD_ERRORS],
  examples: workspaceExamples.update,
};

/** Merchant API: the workspace's public profile, shown to buyers on the checkout page. */
export function workspaceRoutes(services: WorkspaceRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/workspace',
      {
        config: { permission: 'settings:write', docs: UPDATE_DOCS },
        schema: {
          tags: ['Workspace'],
          summary: 'Set the workspace profile',
          description:
            'The name, description, support contact and accent colour buyers see on the checkout page. Fields left out stay as they are; null removes the support contact or the accent colour. The description is limited to 2048 UTF-8 bytes.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: UpdateWorkspaceBody,
          response: { 200: WorkspaceView, ...errorResponses(UPDATE_DOCS.errors) },
        },
      },
      async (request) =>
        presentWorkspace(await services.workspaces.update(request.principal!.workspaceId, request.body, 'api')),
    );
  };
}
