import { MaxLength, MinLength } from 'class-validator';
import { Field, Int, ObjectType } from 'type-graphql';
import { NoStore } from '../../core/no-store';
import { UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';

@ObjectType('DeviceCodeResponse', { description: 'A device-code login started (decisions §14): show `user_code`, open the page, poll the device code.' })
export class DeviceCodeResponse {
  @Field(() => String, { description: 'The secret the device polls and exchanges; shown here only.' })
  @NoStore()
  device_code: string;

  @Field(() => String, { description: 'The short code the person checks on the page (`XXXX-XXXX`, any case, dash optional).' })
  user_code: string;

  @Field(() => String, { description: 'The login page (`/login/device`), absolute (PUBLIC_URL decides the host).' })
  verification_url: string;

  @Field(() => String, { description: 'The login page with the user code filled in.' })
  verification_url_complete: string;

  @Field(() => Int, { description: 'Seconds until the codes expire (DEVICE_CODE_TTL_SECONDS, 600 by default).' })
  expires_in: number;

  @Field(() => Date, { description: 'When the codes expire.' })
  expires_at: Date;

  @Field(() => Int, { description: 'Seconds between polls (the CLI polls every 2 s).' })
  interval: number;
}

@ObjectType('DeviceCodeStatusResponse', { description: "A device code's state, as the CLI polls it." })
export class DeviceCodeStatusResponse {
  @Field(() => String, { description: '`pending`, `approved`, `denied` or `expired` (an exchanged code stays `approved`).' })
  // Read through a URL holding the device code, and polled while it changes: no cache keeps it.
  @NoStore()
  status: string;

  @Field(() => UUIDScalar, { nullable: true, description: "The approving user's id, only once approved (the CLI waits for it)." })
  user_id: string | null;

  @Field(() => Date, { description: 'When the code expires.' })
  expires_at: Date;
}

@ObjectType('DeviceApprovalResponse', { description: 'The decision recorded for a user code.' })
export class DeviceApprovalResponse {
  @Field(() => String, { description: '`approved` or `denied`.' })
  status: string;

  @Field(() => String, { description: 'The user code decided (`XXXX-XXXX`).' })
  user_code: string;
}

@ObjectType('DeviceTokenResponse', { description: 'The access token an approved device code is exchanged for, once.' })
export class DeviceTokenResponse {
  @Field(() => String, { description: 'A JWT to send as `Authorization: Bearer <token>`.' })
  @NoStore()
  access_token: string;

  @Field(() => String, { description: 'Always `bearer`.' })
  token_type: string;

  @Field(() => Int, { description: "Seconds the token is valid (JWT_TTL)." })
  expires_in: number;
}

@ApiInput('DeviceApprovalInput', { description: 'Approve or deny a device login by its user code.', example: { user_code: 'ACDE-FG34', approve: true } })
export class DeviceApprovalInput {
  @Field(() => String, { description: 'The code the device shows (any case, dash optional).' })
  @MinLength(1)
  @MaxLength(32)
  user_code: string;

  @Field(() => Boolean, { nullable: true, defaultValue: true, description: 'true (default) approves, false denies.' })
  approve?: boolean | null;
}

@ApiInput('DeviceTokenInput', { description: 'The device code to exchange for an access token.' })
export class DeviceTokenInput {
  @Field(() => String, { description: 'The `device_code` of `POST /auth/device/code`.' })
  @MinLength(1)
  @MaxLength(256)
  device_code: string;
}
