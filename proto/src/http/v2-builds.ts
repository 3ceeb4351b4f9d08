// The hosted service's v2 builds API (`/api/v2/builds/builds…`): its field names, statuses and answers,
// over the same builds as v3. Inputs ignore unknown fields (v2 does); its build states have no
// `processing` (an upload being processed is `uploading` there).
import { BuildNameField } from './fields';
import { Bool, Enum, Int, NestedArray, Nested, Str } from '../validation/fields';

export class V2BuildNameQuery { @BuildNameField({ optional: true, description: 'Build name, default "default"' }) name?: string }
export class V2ListBuildsQuery { @BuildNameField({ optional: true, description: 'Only builds of this name' }) name?: string }
/** Any string: an id that is not one of this project's builds is 404, as a malformed one is. */
export class V2BuildIdParams { @Str({ max: 200 }) build_id!: string }

export type V2BuildState = 'uploading' | 'ready' | 'failed' | 'deleted';
export class V2BuildView {
  @Str() build_id!: string;
  @Str() name!: string;
  @Int() version!: number;
  @Enum(['uploading', 'ready', 'failed', 'deleted'], { description: 'uploading covers v3 uploading and processing' }) status!: V2BuildState;
  @Str() created_at!: string;
  @Str({ nullable: true }) updated_at!: string | null;
}
export class V2BuildList { @NestedArray(() => V2BuildView) builds!: V2BuildView[]; @Int() total_builds!: number }
export class V2BuildDetail {
  @Str() name!: string;
  @Nested(() => V2BuildView, { nullable: true }) build!: V2BuildView | null;
  @Bool() found!: boolean;
  @Str() message!: string;
}
export class V2UploadUrl {
  @Str() build_id!: string;
  @Str() name!: string;
  @Str() upload_url!: string;
  @Str() message!: string;
  @Int({ description: 'Ours (additive): the version this upload becomes' }) version!: number;
  @Str({ description: 'Ours (additive): when upload_url stops working' }) expires_at!: string;
}
export class V2BuildUpload {
  @Str() build_id!: string;
  @Str() name!: string;
  @Enum(['upload_started']) status!: 'upload_started';
  @Str() message!: string;
  @Int() version!: number;
  @Int({ nullable: true }) file_size!: number | null;
  @Str() upload_time!: string;
}
export class V2BuildDeleted { @Enum(['success']) status!: 'success'; @Str() message!: string }
/** The multipart body of the direct upload: one file part named `file` (the ZIP). */
export const V2BuildUploadForm = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary', description: 'The build ZIP (at most 2 GiB)' } },
};
